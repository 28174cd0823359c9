// The spin detectors as a user meets them: flags in --help, swept as lists, and the report section.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchInProcess } from './helpers/cli.ts';
import { patient } from './helpers/patient.ts';

describe('the flags', () => {
  it('are in bench run --help with their defaults, taking lists and off', async () => {
    const help = await benchInProcess(['run', '--help']);
    for (const flag of ['--max-cycle <list>', '--max-same-error <list>', '--near-duplicate <list>'])
      expect(help.stdout).toMatch(new RegExp(`${flag}[\\s\\S]*?\\(default: "off"\\)`));
    const r = await benchInProcess([
      '--scenario',
      'downloads-reorg',
      '--steps',
      '30',
      '--max-cycle',
      '2..4,off',
      '-n',
      '1',
      '-q',
      '--json',
      '-o',
      path.join(os.tmpdir(), `loopbench-flags-${process.pid}`),
      '--force',
      '--no-transcripts',
    ]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { configs: Array<{ config_id: string }> }).configs.map((c) => c.config_id)).toEqual(
      ['cycle=2', 'cycle=3', 'cycle=4', 'cycle=off'].map((c) => `downloads-reorg steps=30 ${c}`),
    );
    fs.rmSync(path.join(os.tmpdir(), `loopbench-flags-${process.pid}`), { recursive: true, force: true });
  });
});

describe('the report', () => {
  it(
    'gets a spin-detector section and spin_detectors.csv when a detector is swept on and off, and none otherwise',
    { timeout: patient(60_000) },
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-detectors-'));
      const on = await benchInProcess([
        '--scenario',
        'downloads-reorg,paginated-search',
        '--steps',
        '30',
        '--max-cycle',
        '4,off',
        '-n',
        '3',
        '-q',
        '--no-transcripts',
        '-o',
        path.join(dir, 'on'),
      ]);
      expect(on.code).toBe(0);
      const csv = fs.readFileSync(path.join(dir, 'on', 'spin_detectors.csv'), 'utf8');
      expect(csv.split('\n')[0]).toBe(
        'detector,flag,threshold,scenario,configurations,runs,stopped,loops_caught,steps_saved_mean,cost_saved_usd,cost_saved_fraction,false_stops',
      );
      expect(csv).toMatch(/^cycle,--max-cycle,4,downloads-reorg,1,3,3,3,4,/m);
      expect(csv).toMatch(/^cycle,--max-cycle,4,paginated-search,1,3,0,0,,0,0,0$/m);
      const md = fs.readFileSync(path.join(dir, 'on', 'summary.md'), 'utf8');
      expect(md).toContain('### Spin detectors: loops caught and false stops');
      expect(md).toContain('| --max-cycle 4 | downloads-reorg | 3 | 3 | 3 | 4.0 |');
      expect(md).toMatch(
        /- --max-cycle 4: caught 3 looping run\(s\) of 6 paired with it off, saving \$0\.\d+; 0 false stop\(s\)\./,
      );
      expect(fs.readFileSync(path.join(dir, 'on', 'report.html'), 'utf8')).toContain(
        '<section id="spin-detectors"><h2>Spin detectors: loops caught and false stops</h2>',
      );
      const off = await benchInProcess([
        '--scenario',
        'downloads-reorg',
        '--steps',
        '30',
        '-n',
        '1',
        '-q',
        '--no-transcripts',
        '-o',
        path.join(dir, 'off'),
      ]);
      expect(off.code).toBe(0);
      expect(fs.existsSync(path.join(dir, 'off', 'spin_detectors.csv'))).toBe(false);
      expect(fs.readFileSync(path.join(dir, 'off', 'runs.csv'), 'utf8').split('\n')[0]).not.toContain('max_cycle');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  );
});
