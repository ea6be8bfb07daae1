// Where the host can make a cgroup v2, each call's processes are in a cgroup of their own, and the
// call's end kills it: no process escapes by overwriting its environment (the tag the /proc sweep
// looks for) or by forking anew faster than /proc can be read. MOONPOOL_CGROUP chooses where the
// cgroups are made, or turns them off (the sweep then ends a call's processes).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { freezeKillThaw } from '../shared/call-cgroup.js';
import { CLI, eventually, FIXTURES, liveProcesses, startHost, tempDir, uniqueSeconds } from './helpers.js';

const FIXTURE = `${FIXTURES}/process`;

/** Double-forks into a new session, sets a title long enough to cover its environment, says whether its tag survived, and sleeps. */
const TITLED_DAEMON = `
use POSIX qw(setsid);
my $ready = shift;
exit if fork; setsid(); exit if fork;
$0 = 'moonpool-test-daemon ' . ('x' x (1 << 20));
open my $environ, '<', '/proc/self/environ' or die; my $environment = do { local $/; <$environ> };
my $tagged = $environment =~ /MOONPOOL_CALL_TAG=/ ? 1 : 0;
open my $out, '>', "$ready.tmp" or die; print $out "$$ $tagged"; close $out; rename "$ready.tmp", $ready;
sleep 600;
`;

/** Forks, lets the parent exit and starts a new session, over and over, writing its current pid to BEAT, until STOP exists. */
const FORK_LOOP = `
use POSIX qw(setsid);
my ($ready, $beat, $stop) = @ARGV;
sub beat { open my $out, '>', "$beat.tmp" or die; print $out $$; close $out; rename "$beat.tmp", $beat; }
exit if fork; setsid(); beat();
open my $out, '>', $ready or die; close $out;
until (-e $stop) {
  my $child = fork;
  exit if $child;
  setsid(); beat();
}
`;

/** The cgroup v2 directory this process (and so an in-process host) is in, and whether a cgroup can be made there. */
function ownCgroup(): { dir?: string; skip?: string } {
  const path = /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  const mount = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2' && fields[3] === '/');
  if (path === undefined || mount === undefined)
    return { skip: 'no cgroup v2 is mounted here: calls are contained by the /proc sweep' };
  const dir = `${mount[4]}${path}`.replace(/\/$/, '');
  const probe = `${dir}/mptest-probe-${process.pid}`;
  try {
    mkdirSync(probe);
  } catch (error) {
    return {
      skip: `no cgroup can be made under ${dir} (${(error as NodeJS.ErrnoException).code}): calls are contained by the /proc sweep`,
    };
  }
  // cgroup.kill from Linux 5.14; before it, a cgroup is killed by freezing it (cgroup.freeze, from 5.2).
  const killable = existsSync(`${probe}/cgroup.kill`) || existsSync(`${probe}/cgroup.freeze`);
  rmdirSync(probe);
  return killable
    ? { dir }
    : { skip: 'cgroup v2 has neither cgroup.kill nor cgroup.freeze here: calls are contained by the /proc sweep' };
}

const own = process.platform === 'linux' ? ownCgroup() : { skip: 'not Linux' };

/** The cgroups below `parent`. */
function cgroupsUnder(parent: string): string[] {
  return readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** The cgroups a host of process `pid` has made under `parent` and not removed. */
function cgroupsOf(pid: number, parent: string): string[] {
  return cgroupsUnder(parent).filter((name) => name.startsWith(`moonpool-${pid}.`));
}

function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The live `sleep SECONDS` processes (not the shells whose command lines name them). */
const sleeps = (seconds: string): string[] =>
  liveProcesses(`sleep ${seconds}`).filter((line) => /^\S+\s+sleep \S+$/.test(line.trim()));

function killSleeps(seconds: string): void {
  for (const line of spawnSync('pgrep', ['-f', `sleep ${seconds}`], { encoding: 'utf8' }).stdout.split('\n'))
    if (line.trim() !== '') kill(Number(line));
}

/** Runs the CLI with `env` added; resolves to its exit code and stdout. */
function runCli(
  args: string[],
  env: Record<string, string>,
): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; stdout: string }> } {
  const child = spawn(process.execPath, [CLI, ...args, '--config', FIXTURE, '--state-dir', tempDir()], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  return { child, done: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout }))) };
}

describe('a call with a cgroup of its own', { skip: own.skip }, async () => {
  const parent = own.dir!;
  const host = own.skip === undefined ? await startHost(FIXTURE) : undefined;

  test("the call's commands run in its cgroup, which is gone after the call", async () => {
    const result = await host!.call('hold', { command: 'cat /proc/self/cgroup' });
    assert.equal(result.status, 'ok', result.content);
    assert.match(result.content, new RegExp(`^0::.*/moonpool-${process.pid}\\.`, 'm'));
    assert.deepEqual(cgroupsOf(process.pid, parent), []);
  });

  for (const ending of ['ok', 'timeout'] as const) {
    test(`a double-forked daemon that overwrote its tag with its title is dead after the call ends with ${ending}`, async () => {
      const dir = tempDir();
      writeFileSync(`${dir}/daemon.pl`, TITLED_DAEMON);
      const ready = `${dir}/ready`;
      let pid = 0;
      try {
        const result = await host!.call('escape', {
          command: `perl ${dir}/daemon.pl ${ready} >/dev/null 2>&1`,
          ready,
          ending,
        });
        assert.equal(result.status, ending, result.content);
        const [daemon, tagged] = readFileSync(ready, 'utf8').split(' ');
        pid = Number(daemon);
        assert.equal(tagged, '0', 'the title overwrote the environment /proc shows, tag included');
        assert.ok(await eventually(() => !alive(pid)), `the daemon ${pid} is alive after the call`);
        // A killed cgroup goes once its processes have exited, on a timer: later on a loaded machine.
        assert.ok(await eventually(() => cgroupsOf(process.pid, parent).length === 0), 'a cgroup of the call is left');
      } finally {
        if (pid !== 0) kill(pid);
      }
    });

    test(`a process forking into new sessions without end is dead after the call ends with ${ending}, and runs no more`, async () => {
      const dir = tempDir();
      writeFileSync(`${dir}/loop.pl`, FORK_LOOP);
      const [ready, beat, stop] = [`${dir}/ready`, `${dir}/beat`, `${dir}/stop`];
      try {
        const result = await host!.call('escape', {
          command: `perl ${dir}/loop.pl ${ready} ${beat} ${stop} >/dev/null 2>&1`,
          ready,
          ending,
        });
        assert.equal(result.status, ending, result.content);
        assert.ok(await eventually(() => !alive(Number(readFileSync(beat, 'utf8')))), 'the loop ended');
        // A loop still running writes a new pid every fork: its last one must stay its last.
        const last = readFileSync(beat, 'utf8');
        await sleep(500);
        assert.equal(readFileSync(beat, 'utf8'), last, 'the loop still forks after the call');
        assert.ok(!alive(Number(last)));
        // A killed cgroup goes once its processes have exited, on a timer: later on a loaded machine.
        assert.ok(await eventually(() => cgroupsOf(process.pid, parent).length === 0), 'a cgroup of the call is left');
      } finally {
        writeFileSync(stop, '');
      }
    });
  }
});

describe('killing by freezing, for kernels without cgroup.kill', { skip: own.skip }, () => {
  test('ends every process of a cgroup and those below it, a fork loop included, and thaws it', async () => {
    const cgroup = `${own.dir}/mptest-freeze-${process.pid}`;
    const inner = `${cgroup}/inner`;
    mkdirSync(cgroup);
    mkdirSync(inner);
    const dir = tempDir();
    writeFileSync(`${dir}/loop.pl`, FORK_LOOP);
    const [ready, beat, stop] = [`${dir}/ready`, `${dir}/beat`, `${dir}/stop`];
    const seconds = uniqueSeconds();
    try {
      const join = (group: string, command: string): void =>
        void spawn('/bin/sh', ['-c', `echo $$ > "$1/cgroup.procs" && exec ${command}`, 'sh', group], {
          stdio: 'ignore',
          detached: true,
        }).unref();
      join(cgroup, `perl ${dir}/loop.pl ${ready} ${beat} ${stop}`);
      join(inner, `sleep ${seconds}`);
      assert.ok(await eventually(() => existsSync(ready) && sleeps(seconds).length === 1), 'the processes started');

      freezeKillThaw(cgroup);

      const populated = (group: string): boolean =>
        readFileSync(`${group}/cgroup.events`, 'latin1').includes('populated 1');
      assert.ok(await eventually(() => !populated(cgroup)), readFileSync(`${cgroup}/cgroup.procs`, 'latin1'));
      assert.deepEqual(sleeps(seconds), [], 'the process in the cgroup below is dead');
      const last = readFileSync(beat, 'utf8');
      assert.ok(!alive(Number(last)), 'the fork loop is dead');
      assert.match(readFileSync(`${cgroup}/cgroup.events`, 'latin1'), /frozen 0/, 'the cgroup is thawed');
    } finally {
      writeFileSync(stop, '');
      killSleeps(seconds);
      if (existsSync(`${cgroup}/cgroup.kill`)) writeFileSync(`${cgroup}/cgroup.kill`, '1');
      await eventually(() => !readFileSync(`${cgroup}/cgroup.events`, 'latin1').includes('populated 1'));
      rmdirSync(inner);
      rmdirSync(cgroup);
    }
  });
});

describe('MOONPOOL_CGROUP', () => {
  test(
    'names the directory where calls get their cgroups; those of a host that was killed are ended at the next start',
    { skip: own.skip },
    async () => {
      const parent = `${own.dir}/mptest-${process.pid}`;
      mkdirSync(parent);
      const seconds = uniqueSeconds();
      try {
        const crashed = runCli(['call', 'linger', JSON.stringify({ shape: 'setsid', seconds })], {
          MOONPOOL_CGROUP: parent,
        });
        assert.ok(await eventually(() => sleeps(seconds).length > 0), 'the process started');
        assert.equal(cgroupsOf(crashed.child.pid!, parent).length, 1, 'the call has its cgroup under MOONPOOL_CGROUP');
        crashed.child.kill('SIGKILL');
        await crashed.done;
        assert.equal(sleeps(seconds).length, 1, 'the process outlived its killed host');

        const next = await runCli(
          ['call', 'snippet', JSON.stringify({ code: "out(capture('cat /proc/self/cgroup'))" })],
          { MOONPOOL_CGROUP: parent },
        ).done;
        assert.equal(next.code, 0);
        assert.match(next.stdout, new RegExp(`^0::.*/mptest-${process.pid}/moonpool-\\d+\\.`, 'm'));
        assert.deepEqual(sleeps(seconds), [], 'the next host ended the process its killed predecessor left');
        assert.deepEqual(cgroupsUnder(parent), [], 'and removed every cgroup');
      } finally {
        killSleeps(seconds);
        for (const name of cgroupsUnder(parent)) {
          writeFileSync(`${parent}/${name}/cgroup.kill`, '1');
          await eventually(() => readFileSync(`${parent}/${name}/cgroup.events`, 'latin1').includes('populated 0'));
          rmdirSync(`${parent}/${name}`);
        }
        rmdirSync(parent);
      }
    },
  );

  test('set to `off`, no cgroup is made, and the sweep still ends a tagged background process', async () => {
    const where = await runCli(['call', 'snippet', JSON.stringify({ code: "out(capture('cat /proc/self/cgroup'))" })], {
      MOONPOOL_CGROUP: 'off',
    }).done;
    assert.equal(where.code, 0);
    assert.doesNotMatch(where.stdout, /moonpool-/);
    const seconds = uniqueSeconds();
    try {
      // Waits until the background process runs `sleep` (a forked shell shows its own command line until then).
      const code = `capture('sleep ${seconds} >/dev/null 2>&1 &') repeat until capture('ps -eo args='):find('sleep ${seconds}\\n', 1, true) out('started')`;
      const left = await runCli(['call', 'snippet', JSON.stringify({ code })], { MOONPOOL_CGROUP: 'off' }).done;
      assert.equal(left.code, 0);
      assert.match(left.stdout, /started/);
      assert.ok(await eventually(() => sleeps(seconds).length === 0), sleeps(seconds).join('\n'));
    } finally {
      killSleeps(seconds);
    }
  });
});
