// The tier of a test file, by its folder: beside the code (under a src folder) is fast, anything else
// (a test/ folder) e2e. scripts/test.mjs selects by it, scripts/test-guard.mjs enforces the fast tier's rule.
import { sep } from 'node:path';

/** 'fast' or 'e2e'. */
export const tierOf = (file) => (file.split(sep).includes('src') ? 'fast' : 'e2e');
