// The nesting-depth limit on every JSON document the emulator accepts (job bodies, worker
// outputs, REST template bodies, GraphQL request bodies and documents). JSON.parse is not
// recursive, but JSON.stringify and the GraphQL engine are: a document nested thousands of
// levels deep would overflow the stack when the emulator writes it back. Refusing such
// documents at the door means everything stored can always be serialized.

/** Deepest nesting of arrays and objects accepted, counting the outermost value as level 1. */
export const MAX_JSON_DEPTH = 64;

/**
 * Where `value` nests deeper than `limit` levels: the path (`input.a[0].b`) of the first
 * array or object past the limit, or undefined when it is within. Iterative: safe on any depth.
 */
export function depthViolation(value: unknown, limit: number = MAX_JSON_DEPTH): string | undefined {
  if (!nestsDeeper(value, 1, limit)) return undefined;
  return violationPath(value, limit);
}

/**
 * The check every accepted document goes through, without allocating: recursion stops at
 * `limit` levels, so it is bounded whatever the document's depth.
 */
function nestsDeeper(v: unknown, depth: number, limit: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth > limit) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (nestsDeeper(v[i], depth + 1, limit)) return true;
    return false;
  }
  for (const k in v) {
    if (Object.hasOwn(v, k) && nestsDeeper((v as Record<string, unknown>)[k], depth + 1, limit)) return true;
  }
  return false;
}

/** The path of the first array or object past `limit` (document order), for the error text. */
function violationPath(value: unknown, limit: number): string | undefined {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 1, path: '' }];
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return undefined;
    const { v, depth, path } = top;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return path === '' ? '(body)' : path;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string;
        stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1, path: path === '' ? k : `${path}.${k}` });
      }
    }
  }
}

/** The error text for a document past the limit. */
export function depthError(path: string, limit: number = MAX_JSON_DEPTH): string {
  return `${path}: JSON nested more than ${limit} levels deep (the emulator accepts at most ${limit})`;
}

/**
 * Deepest bracket nesting ({, [, () of a GraphQL document's text, skipping strings and
 * comments; stops counting once past `limit`. The engine's parser and validator recurse
 * once per level, so documents past the limit are refused before they reach it.
 */
export function documentNestingExceeds(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      const block = text.startsWith('"""', i);
      if (block) {
        const end = text.indexOf('"""', i + 3);
        i = end < 0 ? text.length : end + 2;
      } else {
        i++;
        while (i < text.length && text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x0a) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      depth++;
      if (depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth--;
    }
  }
  return false;
}
