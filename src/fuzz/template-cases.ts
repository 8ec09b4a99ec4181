// Generated §2.5 template create and update bodies (§4.2): ports formats around the port
// range and protocols, categories, mount paths, disk sizes, env shapes, create-only fields
// on update, unknown fields, and names drawn from a small pool so duplicates happen.
import fc from 'fast-check';
import { TEMPLATE_CATEGORIES, TEMPLATE_DEFAULTS, CREATE_ONLY_TEMPLATE_FIELDS } from '../spec/index.js';
import { maybe, objectOf, type CaseBody } from './case-body.js';
import { intAroundBounds, wrongTypeForBoolean, wrongTypeForInt, wrongTypeForObject, wrongTypeForString } from './edge-values.js';

export interface TemplateCase {
  readonly operation: 'create' | 'update';
  readonly body: CaseBody;
}

/** The highest port number, the edge of the `<port>/<protocol>` rule. */
const PORT_RANGE = { min: 1, max: 65_535 };
const GB_RANGE = { min: 0, max: TEMPLATE_DEFAULTS.containerDiskInGb * 100 };

const portEntry: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(intAroundBounds(PORT_RANGE), fc.constantFrom('http', 'tcp')).map(([p, proto]) => `${p}/${proto}`) },
  { weight: 3, arbitrary: fc.constantFrom('80/udp', '80', 'http/80', '80/HTTP', ' 80/http', '80/http,443/tcp', '/http', '08080/tcp') },
  { weight: 1, arbitrary: wrongTypeForString },
);

const gb: fc.Arbitrary<unknown> = fc.oneof({ weight: 12, arbitrary: intAroundBounds(GB_RANGE) }, { weight: 1, arbitrary: fc.oneof(wrongTypeForInt(GB_RANGE), fc.constant(1.5)) });

const stringList: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.array(fc.constantFrom('python', '-u', 'handler.py', ''), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('python handler.py', [1], [null], {}) },
);

const env: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.dictionary(fc.constantFrom('A', 'MODEL', 'HF_HOME', 'EMPTY'), fc.constantFrom('1', '', '/models', 'x=y'), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>({ A: 1 }, { A: true }, ['A=1'], 'A=1', { A: null }) },
);

const mountPath: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(TEMPLATE_DEFAULTS.volumeMountPath, '/', '/data/models', '/workspace/') },
  { weight: 3, arbitrary: fc.constantFrom('workspace', '', './workspace', '~/data', 'C:\\data') },
  { weight: 1, arbitrary: wrongTypeForString },
);

const category: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...TEMPLATE_CATEGORIES) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('nvidia', 'TPU', '', 'GPU', 1) },
);

const anyString = (valid: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: wrongTypeForString });

const bool: fc.Arbitrary<unknown> = fc.oneof({ weight: 12, arbitrary: fc.boolean() }, { weight: 1, arbitrary: wrongTypeForBoolean });

/** Fields shared by create and update, each present or not, valid or not. */
function commonFields(names: fc.Arbitrary<string>, presence: number) {
  return {
    imageName: maybe(fc.oneof({ weight: 9, arbitrary: fc.constantFrom('qbench/mock-worker:1', 'ghcr.io/org/img@sha256:0', 'img') }, { weight: 1, arbitrary: fc.oneof(fc.constant(''), wrongTypeForString) }), presence),
    name: maybe(fc.oneof({ weight: 9, arbitrary: names }, { weight: 1, arbitrary: fc.oneof(fc.constant(''), wrongTypeForString) }), presence),
    containerDiskInGb: maybe(gb, 3),
    containerRegistryAuthId: maybe(anyString(fc.constantFrom('auth-1', '')), 1),
    dockerEntrypoint: maybe(stringList, 2),
    dockerStartCmd: maybe(stringList, 2),
    env: maybe(env, 3),
    isPublic: maybe(bool, 2),
    ports: maybe(fc.oneof({ weight: 9, arbitrary: fc.array(portEntry, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.constantFrom<unknown>('80/http', {}) }), 4),
    readme: maybe(anyString(fc.constantFrom('', '# Fuzz\n\ntemplate')), 1),
    volumeInGb: maybe(gb, 3),
    volumeMountPath: maybe(mountPath, 4),
    unknownField: maybe(fc.constantFrom<unknown>('x', 1, { gpu: 'A100' }), 1),
  };
}

/** Template names `<prefix>-<n>` from a pool of `poolSize`, so that duplicates are generated. */
export function templateNames(prefix: string, poolSize = 40): fc.Arbitrary<string> {
  return fc.integer({ min: 0, max: poolSize - 1 }).map((n) => `${prefix}-${n}`);
}

export function templateCreateBody(names: fc.Arbitrary<string>): fc.Arbitrary<CaseBody> {
  return fc.oneof(
    {
      weight: 19,
      arbitrary: fc
        .record({ ...commonFields(names, 9), category: maybe(category, 3), isServerless: maybe(bool, 3) })
        .map((fields): CaseBody => ({ kind: 'json', value: objectOf(fields) })),
    },
    { weight: 1, arbitrary: fc.oneof(wrongTypeForObject, fc.constant(null)).map((value): CaseBody => ({ kind: 'json', value })) },
  );
}

export function templateUpdateBody(names: fc.Arbitrary<string>): fc.Arbitrary<CaseBody> {
  const createOnly = Object.fromEntries(
    CREATE_ONLY_TEMPLATE_FIELDS.map((f) => [f, maybe(f === 'category' ? category : bool, 2)]),
  );
  return fc.oneof(
    {
      weight: 19,
      arbitrary: fc.record({ ...commonFields(names, 3), ...createOnly }).map((fields): CaseBody => ({ kind: 'json', value: objectOf(fields) })),
    },
    { weight: 1, arbitrary: fc.oneof(wrongTypeForObject, fc.constant(null)).map((value): CaseBody => ({ kind: 'json', value })) },
  );
}

export function templateCase(prefix: string): fc.Arbitrary<TemplateCase> {
  const names = templateNames(prefix);
  return fc.oneof(
    templateCreateBody(names).map((body): TemplateCase => ({ operation: 'create', body })),
    templateUpdateBody(names).map((body): TemplateCase => ({ operation: 'update', body })),
  );
}
