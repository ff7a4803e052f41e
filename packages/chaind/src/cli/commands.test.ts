import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { COMMAND_MODULES, programFor } from './commands.ts';

const namesOf = (program: Command): string[] => program.commands.flatMap((c) => [c.name(), ...c.aliases()]).sort();

test('each command module registers exactly the names the table lists for it (else that command would load the wrong module)', async () => {
  for (const m of COMMAND_MODULES) {
    const program = new Command('chaind');
    await m.register(program);
    assert.deepEqual(namesOf(program), [...m.names].sort(), `module of ${m.names[0]}`);
  }
});

test('a named command loads its module alone; help and unknown commands load every module', async () => {
  assert.deepEqual(namesOf(await programFor(['node', 'chaind', 'q'])), ['q', 'query', 'status']);
  const all = COMMAND_MODULES.flatMap((m) => m.names).sort();
  assert.deepEqual(namesOf(await programFor(['node', 'chaind'])), all);
  assert.deepEqual(namesOf(await programFor(['node', 'chaind', '--help'])), all);
  assert.deepEqual(namesOf(await programFor(['node', 'chaind', 'nosuch'])), all);
});
