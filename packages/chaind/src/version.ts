/** The chaind release this source tree builds. */
export const CHAIND_VERSION = '0.1.0';
