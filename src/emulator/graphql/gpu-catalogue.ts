// The emulator's GPU catalogue (§2.7): GPU types with memory, prices per GPU-hour in the
// secure and community clouds (on-demand and the spot floor), and the machines that hold
// them, each with its cloud, CUDA version, size and the GPUs other tenants already rent.
// Figures are realistic public list prices, fixed so that tests can assert them.

export type CloudKind = 'SECURE' | 'COMMUNITY';

export interface CloudPrices {
  /** On-demand price per GPU-hour (§2.7 uninterruptablePrice). */
  readonly onDemandPerGpuHr: number;
  /** Lowest accepted spot bid per GPU-hour (§2.7 minimumBidPrice). */
  readonly minimumBidPerGpuHr: number;
}

export interface GpuTypeSpec {
  /** Used as gpuTypeId when creating a pod. */
  readonly id: string;
  readonly displayName: string;
  readonly manufacturer: 'Nvidia' | 'AMD';
  readonly memoryInGb: number;
  readonly cudaCores: number;
  /** Prices per cloud; a cloud that does not offer the type is absent. */
  readonly prices: Readonly<Partial<Record<CloudKind, CloudPrices>>>;
}

export interface MachineSpec {
  readonly id: string;
  readonly gpuTypeId: string;
  readonly cloud: CloudKind;
  /** null: not a CUDA machine (AMD); excluded whenever allowedCudaVersions is given. */
  readonly cudaVersion: string | null;
  readonly gpuCount: number;
  /** GPUs rented by other tenants for the whole run (never interrupted, never freed). */
  readonly rentedByOthers: number;
  readonly vcpuPerGpu: number;
  readonly memoryInGbPerGpu: number;
  readonly dataCenterId: string;
  readonly publicIp: string;
}

const p = (onDemandPerGpuHr: number, minimumBidPerGpuHr: number): CloudPrices => ({ onDemandPerGpuHr, minimumBidPerGpuHr });

export const GPU_TYPES: readonly GpuTypeSpec[] = [
  { id: 'NVIDIA B200', displayName: 'B200', manufacturer: 'Nvidia', memoryInGb: 180, cudaCores: 18_432, prices: { SECURE: p(5.99, 4.79) } },
  { id: 'NVIDIA H200', displayName: 'H200 SXM', manufacturer: 'Nvidia', memoryInGb: 141, cudaCores: 16_896, prices: { SECURE: p(3.99, 3.19) } },
  { id: 'NVIDIA H100 80GB HBM3', displayName: 'H100 SXM', manufacturer: 'Nvidia', memoryInGb: 80, cudaCores: 16_896, prices: { SECURE: p(2.99, 2.39), COMMUNITY: p(2.69, 1.99) } },
  { id: 'NVIDIA H100 PCIe', displayName: 'H100 PCIe', manufacturer: 'Nvidia', memoryInGb: 80, cudaCores: 14_592, prices: { SECURE: p(2.39, 1.89), COMMUNITY: p(1.99, 1.49) } },
  { id: 'NVIDIA A100-SXM4-80GB', displayName: 'A100 SXM', manufacturer: 'Nvidia', memoryInGb: 80, cudaCores: 6_912, prices: { SECURE: p(1.89, 1.29) } },
  { id: 'NVIDIA A100 80GB PCIe', displayName: 'A100 PCIe', manufacturer: 'Nvidia', memoryInGb: 80, cudaCores: 6_912, prices: { SECURE: p(1.64, 1.09), COMMUNITY: p(1.19, 0.79) } },
  { id: 'NVIDIA L40S', displayName: 'L40S', manufacturer: 'Nvidia', memoryInGb: 48, cudaCores: 18_176, prices: { SECURE: p(0.86, 0.53) } },
  { id: 'NVIDIA RTX A6000', displayName: 'RTX A6000', manufacturer: 'Nvidia', memoryInGb: 48, cudaCores: 10_752, prices: { SECURE: p(0.49, 0.25), COMMUNITY: p(0.33, 0.19) } },
  { id: 'NVIDIA GeForce RTX 4090', displayName: 'RTX 4090', manufacturer: 'Nvidia', memoryInGb: 24, cudaCores: 16_384, prices: { SECURE: p(0.69, 0.35), COMMUNITY: p(0.34, 0.2) } },
  { id: 'NVIDIA GeForce RTX 3090', displayName: 'RTX 3090', manufacturer: 'Nvidia', memoryInGb: 24, cudaCores: 10_496, prices: { COMMUNITY: p(0.22, 0.11) } },
  { id: 'NVIDIA RTX A4000', displayName: 'RTX A4000', manufacturer: 'Nvidia', memoryInGb: 16, cudaCores: 6_144, prices: { SECURE: p(0.32, 0.16) } },
  { id: 'AMD Instinct MI300X OAM', displayName: 'MI300X', manufacturer: 'AMD', memoryInGb: 192, cudaCores: 0, prices: { SECURE: p(2.49, 1.99) } },
];

export const MACHINES: readonly MachineSpec[] = [
  { id: 'b200sec01x8', gpuTypeId: 'NVIDIA B200', cloud: 'SECURE', cudaVersion: '12.8', gpuCount: 8, rentedByOthers: 8, vcpuPerGpu: 28, memoryInGbPerGpu: 283, dataCenterId: 'US-KS-2', publicIp: '69.30.85.11' },
  { id: 'h200sec01x8', gpuTypeId: 'NVIDIA H200', cloud: 'SECURE', cudaVersion: '12.8', gpuCount: 8, rentedByOthers: 2, vcpuPerGpu: 24, memoryInGbPerGpu: 251, dataCenterId: 'US-KS-2', publicIp: '69.30.85.12' },
  { id: 'h100sec01x8', gpuTypeId: 'NVIDIA H100 80GB HBM3', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 8, rentedByOthers: 4, vcpuPerGpu: 20, memoryInGbPerGpu: 125, dataCenterId: 'US-TX-3', publicIp: '213.173.102.21' },
  { id: 'h100com01x8', gpuTypeId: 'NVIDIA H100 80GB HBM3', cloud: 'COMMUNITY', cudaVersion: '12.2', gpuCount: 8, rentedByOthers: 2, vcpuPerGpu: 16, memoryInGbPerGpu: 100, dataCenterId: 'EU-RO-1', publicIp: '194.68.245.31' },
  { id: 'h100pcie01x4', gpuTypeId: 'NVIDIA H100 PCIe', cloud: 'COMMUNITY', cudaVersion: '12.1', gpuCount: 4, rentedByOthers: 1, vcpuPerGpu: 16, memoryInGbPerGpu: 94, dataCenterId: 'CA-MTL-1', publicIp: '38.147.83.41' },
  { id: 'h100pcie02x8', gpuTypeId: 'NVIDIA H100 PCIe', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 8, rentedByOthers: 3, vcpuPerGpu: 16, memoryInGbPerGpu: 125, dataCenterId: 'US-TX-3', publicIp: '213.173.102.42' },
  { id: 'a100sxm01x8', gpuTypeId: 'NVIDIA A100-SXM4-80GB', cloud: 'SECURE', cudaVersion: '12.2', gpuCount: 8, rentedByOthers: 5, vcpuPerGpu: 16, memoryInGbPerGpu: 117, dataCenterId: 'EU-SE-1', publicIp: '185.150.27.51' },
  { id: 'a100pcie01x2', gpuTypeId: 'NVIDIA A100 80GB PCIe', cloud: 'COMMUNITY', cudaVersion: '11.8', gpuCount: 2, rentedByOthers: 0, vcpuPerGpu: 8, memoryInGbPerGpu: 83, dataCenterId: 'EU-CZ-1', publicIp: '89.187.159.61' },
  { id: 'a100pcie02x4', gpuTypeId: 'NVIDIA A100 80GB PCIe', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 4, rentedByOthers: 1, vcpuPerGpu: 12, memoryInGbPerGpu: 117, dataCenterId: 'US-GA-1', publicIp: '64.247.201.62' },
  { id: 'l40s0001x4', gpuTypeId: 'NVIDIA L40S', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 4, rentedByOthers: 1, vcpuPerGpu: 12, memoryInGbPerGpu: 62, dataCenterId: 'US-GA-1', publicIp: '64.247.201.71' },
  { id: 'a6000com01x4', gpuTypeId: 'NVIDIA RTX A6000', cloud: 'COMMUNITY', cudaVersion: '12.0', gpuCount: 4, rentedByOthers: 2, vcpuPerGpu: 8, memoryInGbPerGpu: 50, dataCenterId: 'EU-NL-1', publicIp: '91.199.227.81' },
  { id: 'a6000sec01x8', gpuTypeId: 'NVIDIA RTX A6000', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 8, rentedByOthers: 6, vcpuPerGpu: 8, memoryInGbPerGpu: 62, dataCenterId: 'US-TX-3', publicIp: '213.173.102.82' },
  { id: 'r4090sec01x8', gpuTypeId: 'NVIDIA GeForce RTX 4090', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 8, rentedByOthers: 3, vcpuPerGpu: 6, memoryInGbPerGpu: 41, dataCenterId: 'EU-RO-1', publicIp: '194.68.245.91' },
  { id: 'r4090com01x2', gpuTypeId: 'NVIDIA GeForce RTX 4090', cloud: 'COMMUNITY', cudaVersion: '12.2', gpuCount: 2, rentedByOthers: 0, vcpuPerGpu: 8, memoryInGbPerGpu: 31, dataCenterId: 'CA-MTL-1', publicIp: '38.147.83.92' },
  { id: 'r4090com02x4', gpuTypeId: 'NVIDIA GeForce RTX 4090', cloud: 'COMMUNITY', cudaVersion: '11.8', gpuCount: 4, rentedByOthers: 1, vcpuPerGpu: 4, memoryInGbPerGpu: 23, dataCenterId: 'EU-SE-1', publicIp: '185.150.27.93' },
  { id: 'r3090com01x4', gpuTypeId: 'NVIDIA GeForce RTX 3090', cloud: 'COMMUNITY', cudaVersion: '11.8', gpuCount: 4, rentedByOthers: 1, vcpuPerGpu: 4, memoryInGbPerGpu: 24, dataCenterId: 'EU-CZ-1', publicIp: '89.187.159.101' },
  { id: 'a4000sec01x8', gpuTypeId: 'NVIDIA RTX A4000', cloud: 'SECURE', cudaVersion: '12.4', gpuCount: 8, rentedByOthers: 0, vcpuPerGpu: 4, memoryInGbPerGpu: 15, dataCenterId: 'US-GA-1', publicIp: '64.247.201.111' },
  { id: 'mi300x01x8', gpuTypeId: 'AMD Instinct MI300X OAM', cloud: 'SECURE', cudaVersion: null, gpuCount: 8, rentedByOthers: 4, vcpuPerGpu: 24, memoryInGbPerGpu: 283, dataCenterId: 'EU-RO-1', publicIp: '194.68.245.121' },
];

export interface GpuCatalogue {
  readonly gpuTypes: readonly GpuTypeSpec[];
  readonly machines: readonly MachineSpec[];
}

export const DEFAULT_CATALOGUE: GpuCatalogue = { gpuTypes: GPU_TYPES, machines: MACHINES };
