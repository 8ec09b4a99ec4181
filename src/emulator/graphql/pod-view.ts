// What a pod and a GPU type look like in a GraphQL answer (§2.6, §2.7 and WIRE-COMPAT's extra
// fields): runtime figures (uptime, ports, GPU and container utilisation) are computed from
// one clock reading per request, so every field of one answer agrees with the others.
import { createHash } from 'node:crypto';
import { SECOND_MS } from '../../spec/index.js';
import type { CloudKind, GpuTypeSpec, MachineSpec } from './gpu-catalogue.js';
import type { Pod, PodStore } from './pod-store.js';
import type { LowestPrice, Stock } from './stock.js';
import { podUtilisation } from './utilisation.js';

/** Public TCP ports are mapped into this range on the host. */
const TCP_PUBLIC_PORT_BASE = 10_000;
const TCP_PUBLIC_PORT_SPAN = 50_000;

const hex = (s: string) => createHash('sha1').update(s).digest('hex');

export function podHostIdOf(podId: string, machine: MachineSpec): string {
  return `${podId}-${hex(machine.id).slice(0, 8)}`;
}

/** A stable GPU UUID per pod and GPU index, in the nvidia-smi form. */
export function gpuUuidOf(podId: string, index: number): string {
  const h = hex(`${podId}:${index}`);
  return `GPU-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface RuntimePort {
  ip: string;
  isIpPublic: boolean;
  privatePort: number;
  publicPort: number;
  type: string;
}

/** http ports go through the proxy (private address, same port); tcp ports get a public address and a mapped port. */
export function runtimePortsOf(pod: Pod): RuntimePort[] {
  if (pod.ports === '') return [];
  return pod.ports.split(',').map((entry, i) => {
    const [portText, type = 'http'] = entry.split('/');
    const privatePort = Number(portText);
    if (type === 'tcp') {
      return {
        ip: pod.machine.publicIp,
        isIpPublic: true,
        privatePort,
        publicPort: TCP_PUBLIC_PORT_BASE + ((pod.seq * 7919 + i * 104_729 + privatePort) % TCP_PUBLIC_PORT_SPAN),
        type,
      };
    }
    return { ip: `100.65.${(pod.seq >> 8) & 255}.${pod.seq & 255}`, isIpPublic: false, privatePort, publicPort: privatePort, type };
  });
}

export function podView(pod: Pod, store: PodStore, stock: Stock, nowMs: number): Record<string, unknown> {
  const uptimeInSeconds = Math.floor(store.uptimeMs(pod, nowMs) / SECOND_MS);
  const running = pod.desiredStatus === 'RUNNING';
  const util = podUtilisation(uptimeInSeconds, pod.gpuCount);
  const costPerHr = store.costPerHr(pod);
  const firstPort = pod.ports === '' ? null : Number(pod.ports.split('/')[0]);
  return {
    id: pod.id,
    name: pod.name,
    imageName: pod.imageName,
    env: pod.env.map((e) => `${e.key}=${e.value}`),
    machineId: pod.machine.id,
    machine: {
      podHostId: podHostIdOf(pod.id, pod.machine),
      gpuDisplayName: pod.gpuType.displayName,
      gpuTypeId: pod.gpuType.id,
      secureCloud: pod.machine.cloud === 'SECURE',
      dataCenterId: pod.machine.dataCenterId,
      cudaVersion: pod.machine.cudaVersion,
      gpuAvailable: stock.free(pod.machine),
      maintenanceStart: null,
      maintenanceEnd: null,
      maintenanceNote: null,
    },
    desiredStatus: pod.desiredStatus,
    lastStatusChange: pod.lastStatusChange,
    runtime: running
      ? {
          uptimeInSeconds,
          ports: runtimePortsOf(pod),
          gpus: util.gpus.map((g, i) => ({ id: gpuUuidOf(pod.id, i), ...g })),
          container: { cpuPercent: util.cpuPercent, memoryPercent: util.memoryPercent },
        }
      : null,
    costPerHr,
    adjustedCostPerHr: costPerHr,
    gpuCount: pod.gpuCount,
    vcpuCount: pod.machine.vcpuPerGpu * pod.gpuCount,
    memoryInGb: pod.machine.memoryInGbPerGpu * pod.gpuCount,
    containerDiskInGb: pod.containerDiskInGb,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    dockerArgs: pod.dockerArgs,
    dockerId: running ? hex(`${pod.id}:${pod.startedAtMs}`).slice(0, 12) : null,
    ports: pod.ports,
    port: firstPort,
    podType: pod.kind === 'spot' ? 'INTERRUPTABLE' : 'RESERVED',
    uptimeSeconds: uptimeInSeconds,
    templateId: pod.templateId,
    bidPerGpu: pod.bidPerGpuHr,
  };
}

export function gpuTypeView(type: GpuTypeSpec, stock: Stock, lowestPrice: (args: { input?: unknown }) => LowestPrice): Record<string, unknown> {
  const machines = stock.catalogue.machines.filter((m) => m.gpuTypeId === type.id);
  const offered = (c: CloudKind) => type.prices[c] !== undefined && machines.some((m) => m.cloud === c);
  const maxIn = (c: CloudKind | null) => machines.filter((m) => c === null || m.cloud === c).reduce((mx, m) => Math.max(mx, m.gpuCount), 0);
  return {
    id: type.id,
    displayName: type.displayName,
    manufacturer: type.manufacturer,
    memoryInGb: type.memoryInGb,
    cudaCores: type.cudaCores,
    secureCloud: offered('SECURE'),
    communityCloud: offered('COMMUNITY'),
    maxGpuCount: maxIn(null),
    maxGpuCountSecureCloud: maxIn('SECURE'),
    maxGpuCountCommunityCloud: maxIn('COMMUNITY'),
    securePrice: type.prices.SECURE?.onDemandPerGpuHr ?? null,
    communityPrice: type.prices.COMMUNITY?.onDemandPerGpuHr ?? null,
    secureSpotPrice: type.prices.SECURE?.minimumBidPerGpuHr ?? null,
    communitySpotPrice: type.prices.COMMUNITY?.minimumBidPerGpuHr ?? null,
    lowestPrice,
  };
}
