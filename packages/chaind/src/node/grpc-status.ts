// gRPC's status codes, from grpc-js's constants module alone: its package entry loads http2, channels and
// the server (a fifth of a second of `chaind start` and `pre-upgrade`), which only the gRPC server needs.
export { Status as status } from '@grpc/grpc-js/build/src/constants.js';
