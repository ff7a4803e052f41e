// @chaind/chaind/comet: the pinned CometBFT and where its binary is found (the install script's and the node's one rule).
export * from './binary.ts';
export * from './version.ts';
