import type { Io } from '../output/io.js';

/**
 * Download progress on stderr: on a terminal a bar redrawn in place (bytes, total, rate, ETA); without one, a line
 * every 10 % or 10 s once a download has taken more than a second (short downloads stay quiet); nothing with -q.
 */
export interface Progress {
  update(received: number): void;
  done(received: number): void;
}

const silent: Progress = { update() {}, done() {} };

export function startProgress(io: Io, options: { total?: number; start: number; label: string }, now: () => number = Date.now): Progress {
  if (io.options.quiet) return silent;
  const began = now();
  const startBytes = options.start;
  const total = options.total;
  const tty = io.stderrIsTTY;
  let lastDraw = 0;
  let lastLineAt = began;
  let lastStep = total ? Math.floor((startBytes / total) * 10) : 0;
  let drawn = false;
  const describe = (received: number): string => {
    const seconds = Math.max((now() - began) / 1000, 0.001);
    const rate = (received - startBytes) / seconds;
    const parts = [total ? `${bytes(received)} / ${bytes(total)}` : bytes(received), `${bytes(rate)}/s`];
    if (total && rate > 0 && received < total) parts.push(`ETA ${duration((total - received) / rate)}`);
    return parts.join('  ');
  };
  return {
    update(received) {
      const t = now();
      if (tty) {
        if (t - lastDraw < 100) return;
        lastDraw = t;
        drawn = true;
        const pct = total ? Math.min(100, Math.floor((received / total) * 100)) : undefined;
        const bar = pct === undefined ? '' : `[${'#'.repeat(Math.floor(pct / 5)).padEnd(20, '.')}] ${String(pct).padStart(3)}%  `;
        io.streams.stderr.write(`\r\x1b[2K${bar}${describe(received)}`);
        return;
      }
      if (t - began < 1000) return;
      const step = total ? Math.floor((received / total) * 10) : lastStep;
      if (step > lastStep || t - lastLineAt >= 10_000) {
        lastStep = step;
        lastLineAt = t;
        io.streams.stderr.write(`${options.label}: ${total ? `${Math.floor((received / total) * 100)}%  ` : ''}${describe(received)}\n`);
      }
    },
    done() {
      if (tty && drawn) io.streams.stderr.write('\r\x1b[2K');
    },
  };
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
