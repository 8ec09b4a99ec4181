// The GraphQL documents of the §4.3 pod operations, written with variables (the newer
// clients' form, WIRE-COMPAT) and selecting the §2.6 / §2.7 fields. Input type names follow
// the public API; an emulator's schema must declare the same names.

/** §4.3 result fields of podFindAndDeployOnDemand and podRentInterruptable. */
export const DEPLOY_SELECTION = 'id imageName env machineId machine { podHostId }';
/** §4.3 result fields of podResume and podBidResume. */
export const RESUME_SELECTION = 'id desiredStatus imageName';
/** §4.3 result fields of podStop. */
export const STOP_SELECTION = 'id desiredStatus';
/** §2.6 pod fields. */
export const POD_SELECTION =
  'id name imageName env machineId machine { podHostId } desiredStatus ' +
  'runtime { uptimeInSeconds ports { ip isIpPublic privatePort publicPort type } ' +
  'gpus { id gpuUtilPercent memoryUtilPercent } container { cpuPercent memoryPercent } }';
/** §2.7 GPU type fields, without lowestPrice (which needs an input). */
export const GPU_TYPE_SELECTION = 'id displayName memoryInGb secureCloud communityCloud';
export const LOWEST_PRICE_SELECTION = 'minimumBidPrice uninterruptablePrice stockStatus availableGpuCounts';

/** GraphQL input type names used in the variable declarations. */
export const GRAPHQL_INPUT_TYPES = {
  podFindAndDeployOnDemand: 'PodFindAndDeployOnDemandInput',
  podRentInterruptable: 'PodRentInterruptableInput',
  podResume: 'PodResumeInput',
  podBidResume: 'PodBidResumeInput',
  podStop: 'PodStopInput',
  podTerminate: 'PodTerminateInput',
  pod: 'PodFilter',
  gpuTypes: 'GpuTypeFilter',
  lowestPrice: 'GpuLowestPriceInput',
} as const;

const mutation = (op: keyof typeof GRAPHQL_INPUT_TYPES, selection: string | null): string => {
  const name = op[0]!.toUpperCase() + op.slice(1);
  const body = selection === null ? '' : ` { ${selection} }`;
  return `mutation ${name}($input: ${GRAPHQL_INPUT_TYPES[op]}!) { ${op}(input: $input)${body} }`;
};

export const DOCUMENTS = {
  podFindAndDeployOnDemand: mutation('podFindAndDeployOnDemand', DEPLOY_SELECTION),
  podRentInterruptable: mutation('podRentInterruptable', DEPLOY_SELECTION),
  podResume: mutation('podResume', RESUME_SELECTION),
  podBidResume: mutation('podBidResume', RESUME_SELECTION),
  podStop: mutation('podStop', STOP_SELECTION),
  /** WIRE-COMPAT: podTerminate returns a scalar, so it has no selection. */
  podTerminate: mutation('podTerminate', null),
  myPods: `query Myself { myself { pods { ${POD_SELECTION} } } }`,
  pod: `query Pod($input: ${GRAPHQL_INPUT_TYPES.pod}!) { pod(input: $input) { ${POD_SELECTION} } }`,
  gpuTypes: `query GpuTypes($input: ${GRAPHQL_INPUT_TYPES.gpuTypes}) { gpuTypes(input: $input) { ${GPU_TYPE_SELECTION} } }`,
  gpuTypesWithPrice:
    `query GpuTypesWithPrice($input: ${GRAPHQL_INPUT_TYPES.gpuTypes}, $lowestPrice: ${GRAPHQL_INPUT_TYPES.lowestPrice}!) ` +
    `{ gpuTypes(input: $input) { ${GPU_TYPE_SELECTION} lowestPrice(input: $lowestPrice) { ${LOWEST_PRICE_SELECTION} } } }`,
} as const;
