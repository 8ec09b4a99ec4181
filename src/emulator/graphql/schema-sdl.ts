// The SDL of the GraphQL pod interface (§2.6, §2.7, §4.3), with the extra fields and the
// podTerminate mutation that WIRE-COMPAT lists, and the input fields real clients send
// (the Python SDK's literal documents, runpodctl's variables). Input objects and their
// fields are nullable, as in the real schema, so that both `$input: X` and `$input: X!`
// variables fit; the resolvers validate what is required and name the field when it is missing.
/** The fields both deploy mutations take (SDL has no input inheritance). */
const DEPLOY_INPUT_FIELDS = `  cloudType: CloudTypeEnum
  gpuCount: Int
  volumeInGb: Int
  containerDiskInGb: Int
  minVcpuCount: Int
  minMemoryInGb: Int
  gpuTypeId: String
  name: String
  imageName: String
  dockerArgs: String
  ports: String
  volumeMountPath: String
  env: [EnvironmentVariableInput]
  allowedCudaVersions: [String]
  templateId: String
  dataCenterId: String
  countryCode: String
  networkVolumeId: String
  supportPublicIp: Boolean
  startSsh: Boolean
  startJupyter: Boolean
  minDownload: Int
  minUpload: Int
  deployCost: Float
  aiApiId: String
  stopAfter: String
  terminateAfter: String
`;

export const POD_SCHEMA_SDL = /* GraphQL */ `
"Serialises to null: the answer of podTerminate."
scalar Void

enum CloudTypeEnum { ALL SECURE COMMUNITY }
enum PodStatus { CREATED RUNNING EXITED TERMINATED }
enum PodType { RESERVED INTERRUPTABLE }

type Query {
  myself: User
  pod(input: PodFilter): Pod
  gpuTypes(input: GpuTypeFilter): [GpuType]
}

type Mutation {
  podFindAndDeployOnDemand(input: PodFindAndDeployOnDemandInput): Pod
  podRentInterruptable(input: PodRentInterruptableInput): Pod
  podResume(input: PodResumeInput): Pod
  podBidResume(input: PodBidResumeInput): Pod
  podStop(input: PodStopInput): Pod
  podTerminate(input: PodTerminateInput): Void
}

type User {
  id: String
  pods: [Pod]
  "Sum of costPerHr of the running pods."
  currentSpendPerHr: Float
}

input PodFilter { podId: String }
input GpuTypeFilter { id: String, ids: [String] }

input EnvironmentVariableInput { key: String!, value: String! }

input PodFindAndDeployOnDemandInput {
${DEPLOY_INPUT_FIELDS}}

input PodRentInterruptableInput {
  bidPerGpu: Float
${DEPLOY_INPUT_FIELDS}}

input PodResumeInput { podId: String, gpuCount: Int, allowedCudaVersions: [String], syncMachine: Boolean }
input PodBidResumeInput { podId: String, bidPerGpu: Float, gpuCount: Int, allowedCudaVersions: [String] }
input PodStopInput { podId: String, incrementVersion: Boolean }
input PodTerminateInput { podId: String }

type Pod {
  id: String!
  name: String
  imageName: String
  "Environment as KEY=value strings."
  env: [String]
  machineId: String
  machine: PodMachineInfo
  desiredStatus: PodStatus
  lastStatusChange: String
  "null while the pod is not running."
  runtime: PodRuntime
  costPerHr: Float
  adjustedCostPerHr: Float
  gpuCount: Int
  vcpuCount: Float
  memoryInGb: Float
  containerDiskInGb: Int
  volumeInGb: Float
  volumeMountPath: String
  dockerArgs: String
  dockerId: String
  "The ports the pod was created with, as <port>/<protocol>[,...]."
  ports: String
  "The first private port, if any."
  port: Int
  podType: PodType
  uptimeSeconds: Int
  templateId: String
  bidPerGpu: Float
}

type PodMachineInfo {
  podHostId: String
  gpuDisplayName: String
  gpuTypeId: String
  secureCloud: Boolean
  dataCenterId: String
  cudaVersion: String
  "Free GPUs on the host now."
  gpuAvailable: Int
  maintenanceStart: String
  maintenanceEnd: String
  maintenanceNote: String
}

type PodRuntime {
  uptimeInSeconds: Int
  ports: [PodRuntimePorts]
  gpus: [PodRuntimeGpus]
  container: PodRuntimeContainer
}

type PodRuntimePorts { ip: String, isIpPublic: Boolean, privatePort: Int, publicPort: Int, type: String }
type PodRuntimeGpus { id: String, gpuUtilPercent: Int, memoryUtilPercent: Int }
type PodRuntimeContainer { cpuPercent: Int, memoryPercent: Int }

type GpuType {
  id: String!
  displayName: String
  manufacturer: String
  memoryInGb: Int
  cudaCores: Int
  secureCloud: Boolean
  communityCloud: Boolean
  "Largest pod, in GPUs, any machine of the type can hold."
  maxGpuCount: Int
  maxGpuCountSecureCloud: Int
  maxGpuCountCommunityCloud: Int
  securePrice: Float
  communityPrice: Float
  secureSpotPrice: Float
  communitySpotPrice: Float
  lowestPrice(input: GpuLowestPriceInput): LowestPrice
}

input GpuLowestPriceInput {
  gpuCount: Int
  secureCloud: Boolean
  minMemoryInGb: Int
  minVcpuCount: Int
  allowedCudaVersions: [String]
  dataCenterId: String
  countryCode: String
  totalDisk: Int
  minDisk: Int
  minDownload: Int
  minUpload: Int
  supportPublicIp: Boolean
  includeAiApi: Boolean
  compliance: [String]
}

type LowestPrice {
  gpuName: String
  gpuTypeId: String
  minimumBidPrice: Float
  uninterruptablePrice: Float
  minMemory: Int
  minVcpu: Int
  stockStatus: String
  availableGpuCounts: [Int]
  maxUnreservedGpuCount: Int
  totalCount: Int
  rentedCount: Int
  rentalPercentage: Float
}
`;
