import { programFor } from './commands.ts';

try {
  await (await programFor(process.argv)).parseAsync(process.argv);
} catch (e) {
  // every action's error ends here: one line and exit code 1 (commander reports its own usage errors)
  process.exitCode = (await import('./report-error.ts')).reportError(e);
}
