// The ABCI oneof, as cosmjs-types represents it: a Request or Response object with one optional field
// set per method (`info`, `finalizeBlock`…; Response also has `exception`).
import { Buffer } from 'node:buffer';
import { BinaryWriter } from 'cosmjs-types/binary';
import { Request, Response } from 'cosmjs-types/tendermint/abci/types';
import { AbciProtocolError } from './errors.ts';
import { encodeFinalizeBlockFrame } from './finalize-block.ts';

/** An ABCI method: the name of a Request oneof field (and of its Response field). */
export type AbciMethod = keyof Request;

/** A Response oneof field: a method's answer, or `exception`. */
export type AbciResponseKind = keyof Response;

// a Record over the type's keys makes the compiler check the list is complete
const METHODS: Record<AbciMethod, true> = {
  echo: true,
  flush: true,
  info: true,
  initChain: true,
  query: true,
  checkTx: true,
  commit: true,
  listSnapshots: true,
  offerSnapshot: true,
  loadSnapshotChunk: true,
  applySnapshotChunk: true,
  prepareProposal: true,
  processProposal: true,
  extendVote: true,
  verifyVoteExtension: true,
  finalizeBlock: true,
};

/** Every ABCI method, in the proto's field order. */
export const ABCI_METHODS: readonly AbciMethod[] = Object.keys(METHODS) as AbciMethod[];
const RESPONSE_KINDS: readonly AbciResponseKind[] = ['exception', ...ABCI_METHODS];

/** The oneof fields set on a Response (normally exactly one). */
export function responseKinds(res: Response): AbciResponseKind[] {
  return RESPONSE_KINDS.filter((k) => res[k] !== undefined);
}

/** The one method a request names; AbciProtocolError when it names none or several. */
export function requestMethod(req: Request): AbciMethod {
  const set = ABCI_METHODS.filter((m) => req[m] !== undefined);
  if (set.length === 1) return set[0];
  if (set.length === 0) {
    throw new AbciProtocolError('the request names no ABCI method (an empty message, or only unknown fields)');
  }
  throw new AbciProtocolError(`the request names ${set.length} ABCI methods (${set.join(', ')}); a request carries one`);
}

/**
 * The writer's bytes in a buffer of exactly their length. cosmjs-types' own finish() makes a new 8 KiB
 * zero-filled slab for every message under 4 KiB (its pool is created afresh per call); Buffer.allocUnsafe
 * takes those from Node's shared pool, as Buffer.from does (bench/README.md, "ABCI frames"). Every byte is
 * written by the writer's operations (their lengths are what `len` sums), so none of the pool's old
 * contents goes out.
 */
function finish(w: BinaryWriter): Uint8Array {
  const out = Buffer.allocUnsafe(w.len);
  let pos = 0;
  for (let op = w.head.next; op !== undefined; op = op.next) {
    op.proceed(out, pos);
    pos += op.len;
  }
  if (pos !== w.len) throw new AbciProtocolError(`the encoder wrote ${pos} bytes of a ${w.len}-byte message`);
  return out;
}

/** A request, encoded and framed (uvarint length + protobuf bytes). */
export function encodeRequestFrame(req: Request): Uint8Array {
  return finish(Request.encode(req, BinaryWriter.create().fork()).ldelim());
}

/** A response, encoded and framed (uvarint length + protobuf bytes); FinalizeBlock's by its own encoder. */
export function encodeResponseFrame(res: Response): Uint8Array {
  if (res.finalizeBlock !== undefined && responseKinds(res).length === 1) return encodeFinalizeBlockFrame(res.finalizeBlock);
  return finish(Response.encode(res, BinaryWriter.create().fork()).ldelim());
}
