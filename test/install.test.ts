// The package as a user installs it: `npm pack` of the repository, installed globally into a
// temporary prefix and into a project (there npm hoists its dependencies beside it), gives a
// working `moonpool` command (dist/ is built on prepack), ships no source maps whose sources it
// does not include, installs quietly (no dependency has an install script for npm to warn about;
// msgpackr's optional native part did), and `moonpool/pi` resolves from the installed package.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, tempDir } from './helpers.js';

const NPM = 'npm';

test(
  'a packed tarball installs globally without an install-script warning and runs `moonpool`, with no stray source maps',
  { timeout: 180_000 },
  () => {
    const dir = tempDir();
    // The test run has built dist/ already: packing must not rebuild it under the other tests' feet.
    const packed = JSON.parse(
      execFileSync(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    ) as [{ filename: string; files: { path: string }[] }];
    const files = packed[0].files.map((file) => file.path);
    assert.ok(files.includes('dist/ui/cli.js'), 'the tarball has no dist/ui/cli.js');
    assert.deepEqual(
      files.filter((path) => path.endsWith('.map')),
      [],
    );
    assert.deepEqual(
      files.filter((path) => path.startsWith('dist/test/') || path.startsWith('dist/bench/')),
      [],
    );

    const prefix = join(dir, 'prefix');
    const install = spawnSync(
      NPM,
      [
        'install',
        '--global',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--prefix',
        prefix,
        join(dir, packed[0].filename),
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(install.status, 0, install.stderr);
    assert.doesNotMatch(`${install.stdout}${install.stderr}`, /install.scripts|allow.?scripts/i);

    const bin = join(prefix, 'bin', 'moonpool');
    const env = { ...process.env, XDG_CONFIG_HOME: dir, MOONPOOL_CONFIG: '', XDG_STATE_HOME: join(dir, 'state') };
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8', env });
    assert.equal(
      version.stdout.trim(),
      JSON.parse(execFileSync(NPM, ['pkg', 'get', 'version'], { cwd: ROOT, encoding: 'utf8' })) as string,
    );
    const list = spawnSync(bin, ['list'], { encoding: 'utf8', env, cwd: dir });
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, /^count_lines +Count the lines/m);
    const call = spawnSync(
      bin,
      ['call', 'count_lines', '{"path":"."}', '--cwd', join(prefix, 'lib', 'node_modules', 'moonpool')],
      { encoding: 'utf8', env, cwd: dir },
    );
    assert.equal(call.status, 0, call.stderr);
    assert.match(call.stdout, /lines in \d+ files under \./);
    // `moonpool/pi` resolves from beside the installed package, as from a pi extension's directory.
    const piModule = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const pi = await import('moonpool/pi'); console.log(typeof pi.default, typeof pi.createMoonpoolExtension)",
      ],
      { encoding: 'utf8', env, cwd: join(prefix, 'lib') },
    );
    assert.equal(piModule.stdout.trim(), 'function function', piModule.stderr);
    assert.ok(files.includes('dist/pi/index.d.ts'), 'the tarball has no types for moonpool/pi');
    const installed = readdirSync(join(prefix, 'lib', 'node_modules', 'moonpool', 'dist', 'core'));
    assert.deepEqual(
      installed.filter((name) => name.endsWith('.map')),
      [],
    );

    // Installed into a project, npm hoists the dependencies beside moonpool instead of inside it.
    const project = join(dir, 'project');
    const local = spawnSync(
      NPM,
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--prefix', project, join(dir, packed[0].filename)],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(local.status, 0, local.stderr);
    const hoisted = spawnSync(join(project, 'node_modules', '.bin', 'moonpool'), ['list'], {
      encoding: 'utf8',
      env,
      cwd: dir,
    });
    assert.equal(hoisted.status, 0, hoisted.stderr);
    assert.match(hoisted.stdout, /^count_lines +Count the lines/m);
  },
);
