// ICS-23 proofs of an IAVL tree, built as cosmos/iavl v1.x builds them (v1.3.6 read): proof_ics23.go
// (GetMembershipProof, GetNonMembershipProof, createExistenceProof, convertLeafOp, convertInnerOps) and
// proof.go (pathToLeaf). They verify under ICS-23's iavlSpec; the op bytes are hash.ts's rules split around
// the hash the verifier computes from the step below.
import { CommitmentProof, ExistenceProof, HashOp, InnerOp, LeafOp, LengthOp, NonExistenceProof } from 'cosmjs-types/cosmos/ics23/v1/proofs';
import { concat, HASH_LENGTH_BYTE, innerHeader, leafPrefix } from './hash.ts';
import { compareBytes, IavlView, isLeaf, nodeHash, type IavlInner } from './tree.ts';

/** convertLeafOp: sha256 over prefix ‖ uvarint(len(key)) ‖ key ‖ uvarint(32) ‖ sha256(value). */
function leafOp(version: bigint): LeafOp {
  return LeafOp.fromPartial({
    hash: HashOp.SHA256,
    prehashKey: HashOp.NO_HASH,
    prehashValue: HashOp.SHA256,
    length: LengthOp.VAR_PROTO,
    prefix: leafPrefix(version),
  });
}

/**
 * One step up from a child (convertInnerOps). Going left: prefix = header ‖ 0x20, suffix = 0x20 ‖ rightHash;
 * going right: prefix = header ‖ 0x20 ‖ leftHash ‖ 0x20, suffix empty.
 */
function innerOp(node: IavlInner, wentLeft: boolean): InnerOp {
  const header = innerHeader(node.height, node.size, node.version);
  const len = Uint8Array.of(HASH_LENGTH_BYTE);
  return InnerOp.fromPartial({
    hash: HashOp.SHA256,
    prefix: wentLeft ? concat([header, len]) : concat([header, len, nodeHash(node.left), len]),
    suffix: wentLeft ? concat([len, nodeHash(node.right)]) : new Uint8Array(0),
  });
}

/** createExistenceProof: the leaf op and the inner ops from the leaf up to the root; undefined when absent. */
export function existenceProofOf(view: IavlView, key: Uint8Array): ExistenceProof | undefined {
  let node = view.root;
  if (node === null) return undefined;
  const path: InnerOp[] = [];
  while (!isLeaf(node)) {
    const left: boolean = compareBytes(key, node.key) < 0;
    path.push(innerOp(node, left));
    node = left ? node.left : node.right;
  }
  if (compareBytes(key, node.key) !== 0) return undefined;
  path.reverse();
  return ExistenceProof.fromPartial({ key: node.key, value: node.value, leaf: leafOp(node.version), path });
}

/** GetMembershipProof: a CommitmentProof that `key` holds its value; undefined when the key is absent. */
export function existenceProof(view: IavlView, key: Uint8Array): CommitmentProof | undefined {
  const exist = existenceProofOf(view, key);
  return exist === undefined ? undefined : CommitmentProof.fromPartial({ exist });
}

/**
 * GetNonMembershipProof: existence proofs of the neighbours around where `key` would be (left omitted at
 * the start, right at the end); undefined when the key is present.
 */
export function nonExistenceProof(view: IavlView, key: Uint8Array): CommitmentProof | undefined {
  const { index, value } = view.getWithIndex(key);
  if (value !== undefined) return undefined;
  const leftLeaf = index >= 1n ? view.getByIndex(index - 1n) : undefined;
  const rightLeaf = view.getByIndex(index);
  const nonexist = NonExistenceProof.fromPartial({
    key,
    left: leftLeaf === undefined ? undefined : existenceProofOf(view, leftLeaf.key),
    right: rightLeaf === undefined ? undefined : existenceProofOf(view, rightLeaf.key),
  });
  return CommitmentProof.fromPartial({ nonexist });
}
