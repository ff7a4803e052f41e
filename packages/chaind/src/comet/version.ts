// The one pin of CometBFT: the version `npm run cometbft:install` installs with `go install`, and the
// only one `chaind start` runs. v0.38.25 is the newest v0.38 release (ABCI 2.0, what chaind serves).
export const COMETBFT_VERSION = 'v0.38.25';
/** The Go package `go install` builds, as CometBFT's own install docs give it. */
export const COMETBFT_GO_PACKAGE = 'github.com/cometbft/cometbft/cmd/cometbft';
