// Pods (§2.6, §3.2, §4.3): deploy on demand or as spot, stop (GPU released, volume and
// machine kept), resume on the same machine when its stock allows, terminate; spot pods are
// interrupted (EXITED) when on-demand demand needs their GPUs. Time comes from the clock.
// Fault switches: 'pod-stop-keeps-stock' and 'pod-resume-new-id' (§3.2).
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { FaultSet } from '../faults.js';
import type { GpuTypeSpec, MachineSpec } from './gpu-catalogue.js';
import { priceOf, type CloudFilter, type Placement, type PodKind, type Stock } from './stock.js';

export type PodStatus = 'RUNNING' | 'EXITED';

export interface EnvPair {
  readonly key: string;
  readonly value: string;
}

/** A validated deploy request (defaults applied). */
export interface DeploySpec {
  readonly name: string;
  readonly imageName: string;
  readonly env: readonly EnvPair[];
  readonly dockerArgs: string;
  /** Normalised `<port>/<protocol>` list, comma-joined; '' for none. */
  readonly ports: string;
  readonly volumeInGb: number;
  readonly containerDiskInGb: number;
  readonly volumeMountPath: string;
  readonly gpuTypeId: string;
  readonly gpuCount: number;
  readonly cloud: CloudFilter;
  readonly allowedCudaVersions?: readonly string[] | undefined;
  readonly minVcpuCount?: number | undefined;
  readonly minMemoryInGb?: number | undefined;
  readonly dataCenterId?: string | undefined;
  readonly templateId: string | null;
}

export interface Pod {
  id: string;
  readonly name: string;
  readonly imageName: string;
  readonly env: readonly EnvPair[];
  readonly dockerArgs: string;
  readonly ports: string;
  readonly volumeInGb: number;
  readonly containerDiskInGb: number;
  readonly volumeMountPath: string;
  readonly gpuType: GpuTypeSpec;
  gpuCount: number;
  readonly machine: MachineSpec;
  kind: PodKind;
  bidPerGpuHr: number | null;
  desiredStatus: PodStatus;
  /** Emulated ms of the current start; null while EXITED. */
  startedAtMs: number | null;
  /** Running ms of earlier runs (a template's runtimeInMin adds them up). */
  pastRunMs: number;
  lastStatusChange: string;
  readonly templateId: string | null;
  readonly createdAtMs: number;
  /** Creation order: a stable seed for derived figures (ports, GPU ids). */
  readonly seq: number;
}

export type DeployOutcome =
  | { readonly kind: 'ok'; readonly pod: Pod }
  | { readonly kind: 'no-instances' }
  | { readonly kind: 'bid-too-low'; readonly minimumBidPerGpuHr: number };

export type ResumeOutcome =
  | { readonly kind: 'ok'; readonly pod: Pod }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'already-running'; readonly pod: Pod }
  | { readonly kind: 'host-full'; readonly freeGpus: number }
  | { readonly kind: 'cuda-mismatch'; readonly cudaVersion: string | null }
  | { readonly kind: 'bid-too-low'; readonly minimumBidPerGpuHr: number };

const POD_ID_LENGTH = 14;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomId(length: number): string {
  let id = '';
  for (const b of randomBytes(length)) id += ALPHABET[b % ALPHABET.length];
  return id;
}

export class PodStore {
  private readonly pods = new Map<string, Pod>();
  /** Running ms of terminated pods, per template. */
  private readonly terminatedRunMs = new Map<string, number>();
  private seq = 0;

  constructor(
    private readonly stock: Stock,
    private readonly clock: Clock,
    private readonly faults: FaultSet,
  ) {}

  reset(): void {
    this.pods.clear();
    this.terminatedRunMs.clear();
    this.stock.reset();
  }

  private stamp(what: string): string {
    return `${what}: ${new Date(this.clock.now()).toUTCString()}`;
  }

  get(id: string): Pod | undefined {
    return this.pods.get(id);
  }

  list(): Pod[] {
    return [...this.pods.values()];
  }

  costPerHr(pod: Pod): number {
    const perGpu = pod.kind === 'spot' ? (pod.bidPerGpuHr ?? 0) : (priceOf(pod.gpuType, pod.machine.cloud)?.onDemandPerGpuHr ?? 0);
    return Math.round(perGpu * pod.gpuCount * 1000) / 1000;
  }

  uptimeMs(pod: Pod, nowMs: number): number {
    return pod.startedAtMs === null ? 0 : Math.max(0, nowMs - pod.startedAtMs);
  }

  /** Total running ms of the pods (live and terminated) deployed from `templateId`. */
  templateRunMs(templateId: string): number {
    const now = this.clock.now();
    let ms = this.terminatedRunMs.get(templateId) ?? 0;
    for (const p of this.pods.values()) if (p.templateId === templateId) ms += p.pastRunMs + this.uptimeMs(p, now);
    return ms;
  }

  private interrupt(podIds: readonly string[]): void {
    for (const id of podIds) {
      const p = this.pods.get(id);
      if (!p || p.desiredStatus !== 'RUNNING') continue;
      this.halt(p, this.stamp('Interrupted by system: spot GPU reclaimed for on-demand demand'));
      this.stock.release(p.id);
    }
  }

  private halt(p: Pod, lastStatusChange: string): void {
    p.pastRunMs += this.uptimeMs(p, this.clock.now());
    p.startedAtMs = null;
    p.desiredStatus = 'EXITED';
    p.lastStatusChange = lastStatusChange;
  }

  deploy(spec: DeploySpec, gpuType: GpuTypeSpec, kind: PodKind, bidPerGpuHr: number | null): DeployOutcome {
    const filter = {
      gpuTypeId: spec.gpuTypeId,
      gpuCount: spec.gpuCount,
      cloud: spec.cloud,
      allowedCudaVersions: spec.allowedCudaVersions,
      minVcpuCount: spec.minVcpuCount,
      minMemoryInGb: spec.minMemoryInGb,
      dataCenterId: spec.dataCenterId,
    };
    const placement: Placement = kind === 'spot' ? this.stock.placeSpot(filter, bidPerGpuHr ?? 0) : this.stock.placeOnDemand(filter);
    if (!placement.ok) return placement.reason === 'bid-too-low' ? { kind: 'bid-too-low', minimumBidPerGpuHr: placement.minimumBidPerGpuHr } : { kind: 'no-instances' };
    this.interrupt(placement.interrupt);
    let id = randomId(POD_ID_LENGTH);
    while (this.pods.has(id)) id = randomId(POD_ID_LENGTH);
    const now = this.clock.now();
    const pod: Pod = {
      id,
      name: spec.name,
      imageName: spec.imageName,
      env: spec.env,
      dockerArgs: spec.dockerArgs,
      ports: spec.ports,
      volumeInGb: spec.volumeInGb,
      containerDiskInGb: spec.containerDiskInGb,
      volumeMountPath: spec.volumeMountPath,
      gpuType,
      gpuCount: spec.gpuCount,
      machine: placement.machine,
      kind,
      bidPerGpuHr: kind === 'spot' ? bidPerGpuHr : null,
      desiredStatus: 'RUNNING',
      startedAtMs: now,
      pastRunMs: 0,
      lastStatusChange: this.stamp('Rented by User'),
      templateId: spec.templateId,
      createdAtMs: now,
      seq: this.seq++,
    };
    this.stock.allocate(id, placement.machine, spec.gpuCount, kind, pod.bidPerGpuHr);
    this.pods.set(id, pod);
    return { kind: 'ok', pod };
  }

  /** podResume (on-demand) and podBidResume (spot): back to RUNNING on the pod's own machine. */
  resume(podId: string, opts: { gpuCount?: number | undefined; kind: PodKind; bidPerGpuHr?: number | undefined; allowedCudaVersions?: readonly string[] | undefined }): ResumeOutcome {
    const p = this.pods.get(podId);
    if (!p) return { kind: 'not-found' };
    if (p.desiredStatus === 'RUNNING') return { kind: 'already-running', pod: p };
    const cuda = opts.allowedCudaVersions;
    if (cuda && cuda.length > 0 && (p.machine.cudaVersion === null || !cuda.includes(p.machine.cudaVersion))) {
      return { kind: 'cuda-mismatch', cudaVersion: p.machine.cudaVersion };
    }
    const gpus = opts.gpuCount ?? p.gpuCount;
    // Under 'pod-stop-keeps-stock' the stopped pod never gave its GPUs back: it simply keeps them.
    if (!this.stock.holds(p.id)) {
      const placement = this.stock.placeOnMachine(p.machine, gpus, opts.kind, opts.bidPerGpuHr);
      if (!placement.ok) {
        return placement.reason === 'bid-too-low'
          ? { kind: 'bid-too-low', minimumBidPerGpuHr: placement.minimumBidPerGpuHr }
          : { kind: 'host-full', freeGpus: this.stock.free(p.machine) };
      }
      this.interrupt(placement.interrupt);
      this.stock.allocate(p.id, p.machine, gpus, opts.kind, opts.kind === 'spot' ? (opts.bidPerGpuHr ?? null) : null);
    }
    p.gpuCount = gpus;
    p.kind = opts.kind;
    p.bidPerGpuHr = opts.kind === 'spot' ? (opts.bidPerGpuHr ?? null) : null;
    p.desiredStatus = 'RUNNING';
    p.startedAtMs = this.clock.now();
    p.lastStatusChange = this.stamp('Resumed by User');
    if (this.faults.has('pod-resume-new-id')) {
      let id = randomId(POD_ID_LENGTH);
      while (this.pods.has(id)) id = randomId(POD_ID_LENGTH);
      this.pods.delete(p.id);
      this.stock.rekey(p.id, id);
      p.id = id;
      this.pods.set(id, p);
    }
    return { kind: 'ok', pod: p };
  }

  /** podStop: EXITED, GPUs back to stock, volume and machine kept. Stopping a stopped pod is a no-op. */
  stop(podId: string): Pod | undefined {
    const p = this.pods.get(podId);
    if (!p) return undefined;
    if (p.desiredStatus === 'RUNNING') {
      this.halt(p, this.stamp('Exited by User'));
      if (!this.faults.has('pod-stop-keeps-stock')) this.stock.release(p.id);
    }
    return p;
  }

  /** podTerminate: the pod, its volume and its GPUs are gone. */
  terminate(podId: string): boolean {
    const p = this.pods.get(podId);
    if (!p) return false;
    if (p.templateId !== null) {
      const ms = p.pastRunMs + this.uptimeMs(p, this.clock.now());
      this.terminatedRunMs.set(p.templateId, (this.terminatedRunMs.get(p.templateId) ?? 0) + ms);
    }
    this.stock.release(p.id);
    this.pods.delete(p.id);
    return true;
  }
}
