/**
 * The README is a landing page and the manual lives in docs/: every relative link in them must reach a file that
 * exists, and a heading of it where the link names one (as the repository's web view makes their anchors).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every Markdown file below docs/, by their path from the root. */
const pages = (): string[] => [
  'README.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
    .sort(),
];

/** A page's text without its fenced blocks, where a # is no heading and a bracket no link. */
const withoutFences = (text: string): string => text.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1`*\s*$/gm, '');

/** And without inline code, where a bracket is no link either. */
const prose = (text: string): string => withoutFences(text).replace(/`[^`\n]*`/g, '');

/** The anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of withoutFences(text).matchAll(/^#{1,6} (.*)$/gm)) {
    const slug = heading.replace(/`/g, '').trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count ? `${slug}-${count}` : slug);
  }
  return found;
}

/** The relative links of a page that lead nowhere: "target (why)". */
function brokenLinks(page: string): string[] {
  const text = readFileSync(join(root, page), 'utf8');
  const broken: string[] = [];
  for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(https?|mailto):/.test(target)) continue;
    const [path, anchor] = target.split('#');
    const file = path ? join(root, dirname(page), path) : join(root, page);
    if (!existsSync(file)) broken.push(`${target} (no ${relative(root, file)})`);
    else if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${target} (no heading #${anchor} in ${relative(root, file)})`);
  }
  return broken;
}

describe('the README and docs/', () => {
  it('every relative link reaches a file, and the heading it names', () => {
    const broken = pages().flatMap((page) => brokenLinks(page).map((link) => `${page}: ${link}`));
    expect(broken).toEqual([]);
  });

  it('the README is a landing page: at most 400 lines, linking to the reference and the guides', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
    for (const page of ['docs/commands/README.md', 'docs/configuration.md', 'docs/token-rotation.md', 'docs/configuration-as-code.md', 'docs/fleets.md', 'docs/mcp.md', 'docs/sandbox.md', 'docs/performance.md', 'docs/architecture.md']) {
      expect(readme, page).toContain(`](${page}`);
    }
  });

  it('every page below docs/ is reached from the README, or from a page it reaches', () => {
    const reached = new Set(['README.md']);
    const queue = ['README.md'];
    while (queue.length) {
      const page = queue.shift()!;
      for (const [, target] of prose(readFileSync(join(root, page), 'utf8')).matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
        const next = relative(root, join(root, dirname(page), target));
        if (next.endsWith('.md') && !reached.has(next) && existsSync(join(root, next))) {
          reached.add(next);
          queue.push(next);
        }
      }
    }
    expect(pages().filter((page) => !reached.has(page))).toEqual([]);
  });
});
