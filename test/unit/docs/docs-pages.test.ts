// The documentation as a newcomer reads it: every relative link of README.md, docs/ and
// bench/README.md reaches a file (and, with a #fragment, a heading or an anchor of it), every
// clause a check cites has its anchor in docs/spec.md (the reports link there), the workflow the CI
// guide shows is the one `qbench init` writes, the README stays short and the getting-started
// guide reaches a load run on the user's own endpoint within 60 lines.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages } from '../../../src/docs/code-blocks.js';
import { firstUses, GLOSSARY_TERMS, linkedPages, linkFirstUses } from '../../../src/docs/glossary-links.js';
import { clauseAnchor } from '../../../src/docs/spec-doc.js';
import { WORKFLOW_TEMPLATE } from '../../../src/init/scaffold.js';
import { CLAUSES } from '../../../suites/conformance/clauses.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
    .sort();
}

const PAGES = ['README.md', 'bench/README.md', ...markdownFiles('docs')];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

/** The anchors a page offers: its headings' slugs and its explicit `<a id>`s. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const h = !fenced ? /^#{1,6} (.*)$/.exec(line) : null;
    if (h?.[1] !== undefined) out.add(slug(h[1]));
  }
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1]!);
  return out;
}

/** Relative links outside code: `[text](target)`. */
function links(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe('documentation pages', () => {
  it.each(PAGES)('%s: every relative link reaches its file and anchor', (page) => {
    const broken: string[] = [];
    for (const link of links(read(page))) {
      const [file = '', fragment] = link.split('#');
      const target = file === '' ? page : path.join(path.dirname(page), file);
      if (!existsSync(path.join(ROOT, target))) broken.push(`${link}: no file ${target}`);
      else if (fragment !== undefined && target.endsWith('.md') && !anchors(read(target)).has(fragment)) broken.push(`${link}: no anchor #${fragment} in ${target}`);
    }
    expect(broken).toEqual([]);
  });

  it('every clause section a check cites has its anchor in docs/spec.md', () => {
    const spec = anchors(read('docs/spec.md'));
    const missing = [...new Set(CLAUSES.map((c) => c.section))].filter((s) => !spec.has(clauseAnchor(s)));
    expect(missing).toEqual([]);
    expect(clauseAnchor('§2.2')).toBe('s2.2');
  });

  it('the CI guide shows the workflow qbench init writes, as it writes it', () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(read('docs/guides/ci.md'))?.[1];
    expect(yaml).toBe(WORKFLOW_TEMPLATE);
  });

  it('the README is under 150 lines, and links every guide', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThan(150);
    for (const guide of markdownFiles('docs/guides').filter((g) => !g.endsWith('in-your-project.md'))) expect(readme, guide).toContain(guide);
  });

  it.each(linkedPages(docPages(ROOT)))('%s links each glossary term at its first use', (page) => {
    const unlinked = firstUses(read(page), page).filter((u) => !u.linked).map((u) => u.term.anchor);
    expect(unlinked, 'run `npm run docs` to link them').toEqual([]);
  });

  it('a first use is linked once, inside prose only', () => {
    const page = 'docs/guides/x.md';
    const text = 'An `inconclusive` code span, then an inconclusive check, then inconclusive again.\n\n```sh\ninconclusive\n```\n';
    const linked = linkFirstUses(text, page);
    expect(linked).toBe('An `inconclusive` code span, then an [inconclusive](../concepts/glossary.md#inconclusive) check, then inconclusive again.\n\n```sh\ninconclusive\n```\n');
    expect(linkFirstUses(linked, page)).toBe(linked);
    expect(GLOSSARY_TERMS.every((t) => anchors(read('docs/concepts/glossary.md')).has(t.anchor))).toBe(true);
  });

  it('getting started reaches a load run on the user\'s own endpoint within 60 lines', () => {
    const lines = read('docs/getting-started.md').split('\n');
    const first = lines.findIndex((l) => /qbench load .*--target https:\/\//.test(l));
    expect(first).toBeGreaterThan(0);
    expect(first + 1).toBeLessThanOrEqual(60);
  });
});
