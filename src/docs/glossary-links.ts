// The glossary's terms linked at their first use on each hand-written page: `npm run docs` links
// the first use of each term that a page does not link yet (docs/concepts/glossary.md#<anchor>),
// and the docs test fails when a page's first use of a term is not such a link. First use: the
// first occurrence in the page's prose, outside code, headings, HTML and other links.
import path from 'node:path';

export interface GlossaryTerm {
  /** The glossary's anchor (docs/concepts/glossary.md#<anchor>). */
  readonly anchor: string;
  /** What counts as a use of it in prose. */
  readonly pattern: RegExp;
}

export const GLOSSARY = 'docs/concepts/glossary.md';

export const GLOSSARY_TERMS: readonly GlossaryTerm[] = [
  { anchor: 'inconclusive', pattern: /\binconclusive\b/i },
  { anchor: 'coordinated-omission', pattern: /\bcoordinated[ -]omission\b/i },
  { anchor: 'time-scale', pattern: /\btime[ -]scales?\b/i },
  { anchor: 'spare-endpoint', pattern: /\bspare endpoints?\b/i },
  { anchor: 'open-loop', pattern: /\bopen[ -]loop\b/i },
  { anchor: 'invalid', pattern: /\bINVALID\b/ },
  { anchor: 'main-job', pattern: /\bmain job\b/i },
  { anchor: 'send-lateness', pattern: /\bsend lateness\b/i },
  { anchor: 'cold-start', pattern: /\bcold starts?\b/i },
  { anchor: 'profile', pattern: /\bquick profile\b/i },
];

/** The hand-written pages whose first uses are linked (generated references and the glossary itself are not). */
export function linkedPages(pages: readonly string[]): string[] {
  return pages.filter((p) => p === 'README.md' || (p.startsWith('docs/') && p !== GLOSSARY && !/^docs\/(spec|coverage-matrix)\.md$/.test(p) && !/^docs\/reference\/(cli|config|exit-codes|faults|result)\.md$/.test(p)));
}

/** Spans of `text` that are not prose: fenced blocks, inline code, headings, HTML tags, link targets. */
function blockedSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (const re of [/^```[\s\S]*?^```/gm, /`[^`\n]*`/g, /^#{1,6} .*$/gm, /<[^>\n]+>/g, /\]\([^)\s]*\)/g]) {
    for (const m of text.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/** Links `[label](target)`: the span of the whole link and its target. */
function links(text: string): { start: number; end: number; target: string }[] {
  return [...text.matchAll(/\[([^\]\n]*)\]\(([^)\s]+)\)/g)].map((m) => ({ start: m.index, end: m.index + m[0].length, target: m[2] ?? '' }));
}

export interface FirstUse {
  readonly term: GlossaryTerm;
  readonly index: number;
  readonly length: number;
  /** The first use is already a link to the term's glossary entry. */
  readonly linked: boolean;
}

/** Each term's first use in prose on a page at `page` (relative to the root), if any. */
export function firstUses(text: string, page: string): FirstUse[] {
  const blocked = blockedSpans(text);
  const all = links(text);
  const href = (t: GlossaryTerm) => `${path.posix.relative(path.posix.dirname(page), GLOSSARY)}#${t.anchor}`;
  const out: FirstUse[] = [];
  for (const term of GLOSSARY_TERMS) {
    const re = new RegExp(term.pattern.source, term.pattern.flags.includes('g') ? term.pattern.flags : `${term.pattern.flags}g`);
    for (const m of text.matchAll(re)) {
      const at = m.index;
      if (blocked.some(([a, b]) => at >= a && at < b)) continue;
      const link = all.find((l) => at >= l.start && at < l.end);
      if (link && link.target !== href(term)) continue;
      out.push({ term, index: at, length: m[0].length, linked: link !== undefined });
      break;
    }
  }
  return out;
}

/** The page with each term's unlinked first use made a link to its glossary entry. */
export function linkFirstUses(text: string, page: string): string {
  const uses = firstUses(text, page).filter((u) => !u.linked).sort((a, b) => b.index - a.index);
  let out = text;
  for (const u of uses) {
    const href = `${path.posix.relative(path.posix.dirname(page), GLOSSARY)}#${u.term.anchor}`;
    out = `${out.slice(0, u.index)}[${out.slice(u.index, u.index + u.length)}](${href})${out.slice(u.index + u.length)}`;
  }
  return out;
}
