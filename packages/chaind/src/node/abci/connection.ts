// One ABCI connection from CometBFT, as its four clients use them (proxy/app_conn.go): CometBFT says
// nothing about which connection is which, so a connection takes its role from the first request that
// belongs to one, and a request of another role on it is a protocol error (ResponseException, then the
// connection closes). Echo and Flush belong to every connection.
import { AbciProtocolError, requestMethod, type AbciMethod } from '@chaind/abci';
import { ResponseApplySnapshotChunk_Result, ResponseOfferSnapshot_Result, type Request, type Response } from 'cosmjs-types/tendermint/abci/types';

export type ConnectionRole = 'consensus' | 'mempool' | 'query' | 'snapshot';

/** The request kinds: the fields of the Request oneof. */
export type RequestKind = AbciMethod;

const ROLE: Readonly<Record<RequestKind, ConnectionRole | undefined>> = {
  echo: undefined,
  flush: undefined,
  info: 'query',
  query: 'query',
  initChain: 'consensus',
  prepareProposal: 'consensus',
  processProposal: 'consensus',
  extendVote: 'consensus',
  verifyVoteExtension: 'consensus',
  finalizeBlock: 'consensus',
  commit: 'consensus',
  checkTx: 'mempool',
  listSnapshots: 'snapshot',
  offerSnapshot: 'snapshot',
  loadSnapshotChunk: 'snapshot',
  applySnapshotChunk: 'snapshot',
};

/** What a connection calls; `claimConsensus` when a connection takes the consensus role. */
export interface ConnectionApp {
  /** Called once when this connection becomes the consensus connection (it replaces an open one); may throw to refuse it. */
  claimConsensus(): void;
  handle(kind: RequestKind, req: Request): Response | Promise<Response>;
}

/** The role-checking front of one connection. */
export class AbciConnection {
  private role: ConnectionRole | undefined;

  constructor(private readonly app: ConnectionApp) {}

  get connectionRole(): ConnectionRole | undefined {
    return this.role;
  }

  handle(req: Request): Response | Promise<Response> {
    const kind = requestMethod(req);
    const role = ROLE[kind];
    if (role !== undefined) {
      if (this.role === undefined) {
        if (role === 'consensus') this.app.claimConsensus();
        this.role = role;
      } else if (role !== this.role) {
        throw new AbciProtocolError(`${kind} is a ${role} request, but this is the ${this.role} connection`);
      }
    }
    return this.app.handle(kind, req);
  }
}

/**
 * The snapshot connection's answers until state sync exists: no snapshots to offer, every offered
 * snapshot rejected (CometBFT then tries others, or gives up and syncs by blocks).
 */
export function snapshotResponse(kind: RequestKind): Response | undefined {
  switch (kind) {
    case 'listSnapshots':
      return { listSnapshots: { snapshots: [] } };
    case 'offerSnapshot':
      return { offerSnapshot: { result: ResponseOfferSnapshot_Result.REJECT } };
    case 'loadSnapshotChunk':
      return { loadSnapshotChunk: { chunk: new Uint8Array(0) } };
    case 'applySnapshotChunk':
      return { applySnapshotChunk: { result: ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT, refetchChunks: [], rejectSenders: [] } };
    default:
      return undefined;
  }
}
