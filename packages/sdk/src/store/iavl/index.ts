// An IAVL v1 tree (cosmos/iavl) with ICS-23 proofs: issue 34's Merkle commitment, not yet wired into the stores.
export { EMPTY_ROOT_HASH, innerHash, leafHash } from './hash.ts';
export { existenceProof, nonExistenceProof } from './proof.ts';
export { IavlTree, IavlView, type SavedVersion } from './tree.ts';
