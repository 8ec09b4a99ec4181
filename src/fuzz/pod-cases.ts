// Generated §4.3 podFindAndDeployOnDemand inputs, sent with variables as the newer clients
// do (WIRE-COMPAT): each listed field valid, of the wrong type, or absent; ports around the
// `<port>/<protocol>` rule; env as {key, value} pairs or not; unlisted extra fields.
import fc from 'fast-check';
import { CLOUD_TYPES } from '../spec/index.js';
import { maybe, objectOf } from './case-body.js';
import { wrongTypeForInt, wrongTypeForObject, wrongTypeForString } from './edge-values.js';

export interface PodInputCase {
  /** The `input` variable. */
  readonly input: Record<string, unknown>;
}

/** The fields §4.3 lists for podFindAndDeployOnDemand, with their types. */
export const POD_DEPLOY_FIELDS = {
  cloudType: 'enum',
  gpuCount: 'integer',
  volumeInGb: 'integer',
  containerDiskInGb: 'integer',
  minVcpuCount: 'integer',
  minMemoryInGb: 'integer',
  gpuTypeId: 'string',
  name: 'string',
  imageName: 'string',
  dockerArgs: 'string',
  ports: 'ports',
  volumeMountPath: 'string',
  env: 'env',
  allowedCudaVersions: 'string-list',
} as const;

/** Small, sensible sizes: the case is about types, not about what the stock can hold. */
const SIZE_RANGE = { min: 1, max: 8 };

const valueOrWrong = <T>(valid: fc.Arbitrary<T>, wrong: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: wrong });

const intField = valueOrWrong(fc.integer(SIZE_RANGE), fc.oneof(wrongTypeForInt(SIZE_RANGE), fc.constant(1.5)));
const strField = (valid: fc.Arbitrary<string>) => valueOrWrong(valid, wrongTypeForString);

/** Inputs whose `gpuTypeId` is drawn from the ids the target lists (fetched at setup). */
export function podInputCase(gpuTypeIds: readonly string[]): fc.Arbitrary<PodInputCase> {
  return fc
    .record({
      cloudType: maybe(valueOrWrong(fc.constantFrom(...CLOUD_TYPES.filter((c) => c !== 'COMMUNITY')), fc.constantFrom<unknown>('all', 'PRIVATE', 1)), 3),
      gpuCount: maybe(intField, 9),
      volumeInGb: maybe(intField, 3),
      containerDiskInGb: maybe(intField, 3),
      minVcpuCount: maybe(intField, 2),
      minMemoryInGb: maybe(intField, 2),
      gpuTypeId: maybe(strField(fc.constantFrom(...gpuTypeIds)), 9),
      name: maybe(strField(fc.constantFrom('qbench-fuzz-pod', '')), 3),
      imageName: maybe(strField(fc.constantFrom('qbench/mock-worker:1', 'runpod/pytorch:2.1')), 9),
      dockerArgs: maybe(strField(fc.constantFrom('', 'python -u handler.py')), 2),
      ports: maybe(
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom<unknown>('8888/http', '22/tcp', '8888/http,22/tcp', '65535/tcp', '1/http') },
          { weight: 3, arbitrary: fc.constantFrom<unknown>('8888/udp', '0/http', '65536/tcp', 'http/8888', '8888') },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(8888, ['8888/http']) },
        ),
        3,
      ),
      volumeMountPath: maybe(strField(fc.constantFrom('/workspace', '/data')), 2),
      env: maybe(
        fc.oneof(
          { weight: 8, arbitrary: fc.array(fc.record({ key: fc.constantFrom('A', 'HF_HOME'), value: fc.constantFrom('1', '') }), { maxLength: 2 }) },
          { weight: 2, arbitrary: fc.oneof(fc.constantFrom<unknown>(['A=1'], [{ key: 'A' }], [{ key: 'A', value: 1 }]), wrongTypeForObject) },
        ),
        3,
      ),
      allowedCudaVersions: maybe(valueOrWrong(fc.constantFrom(['12.1'], ['12.4', '12.1'], []), fc.constantFrom<unknown>('12.1', [12.1])), 2),
      unlistedField: maybe(fc.constantFrom<unknown>('x', 1), 1),
    })
    .map((fields) => ({ input: objectOf(fields) }));
}
