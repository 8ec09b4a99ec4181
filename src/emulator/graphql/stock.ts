// GPU stock (§2.7, §3.2, §4.3): which GPUs of which machine each pod holds, where a new pod
// fits (cloud, allowedCudaVersions, vCPU and memory minimums), which spot pods an
// on-demand request interrupts, and the stockStatus / availableGpuCounts / prices that
// `lowestPrice` reports from the stock as pods come and go.
import type { CloudKind, GpuCatalogue, GpuTypeSpec, MachineSpec } from './gpu-catalogue.js';

export type PodKind = 'on-demand' | 'spot';
export type CloudFilter = 'ALL' | 'SECURE' | 'COMMUNITY';
export type StockStatus = 'High' | 'Medium' | 'Low' | 'None';

interface Allocation {
  readonly podId: string;
  readonly machineId: string;
  readonly gpus: number;
  readonly kind: PodKind;
  readonly bidPerGpuHr: number | null;
  /** Allocation order, so that the newest of equal bids is interrupted first. */
  readonly seq: number;
}

export interface MachineFilter {
  readonly gpuTypeId: string;
  readonly gpuCount: number;
  readonly cloud: CloudFilter;
  /** Empty or absent: any CUDA version. */
  readonly allowedCudaVersions?: readonly string[] | undefined;
  readonly minVcpuCount?: number | undefined;
  readonly minMemoryInGb?: number | undefined;
  readonly dataCenterId?: string | undefined;
}

export type Placement =
  | { readonly ok: true; readonly machine: MachineSpec; readonly interrupt: readonly string[] }
  | { readonly ok: false; readonly reason: 'no-instances' }
  | { readonly ok: false; readonly reason: 'bid-too-low'; readonly minimumBidPerGpuHr: number };

/** stockStatus thresholds: the share of the type's pod-sized slots still free. */
const HIGH_SHARE = 0.5;
const MEDIUM_SHARE = 0.2;

export interface LowestPriceQuery {
  readonly gpuCount: number;
  /** true: secure cloud only; false: community only; undefined: both. */
  readonly secureCloud?: boolean | undefined;
  readonly minVcpuCount?: number | undefined;
  readonly minMemoryInGb?: number | undefined;
  readonly allowedCudaVersions?: readonly string[] | undefined;
  readonly dataCenterId?: string | undefined;
}

export interface LowestPrice {
  gpuName: string;
  gpuTypeId: string;
  minimumBidPrice: number | null;
  uninterruptablePrice: number | null;
  minMemory: number | null;
  minVcpu: number | null;
  stockStatus: StockStatus;
  availableGpuCounts: number[];
  maxUnreservedGpuCount: number;
  totalCount: number;
  rentedCount: number;
  rentalPercentage: number;
}

export function priceOf(type: GpuTypeSpec, cloud: CloudKind) {
  return type.prices[cloud];
}

export class Stock {
  private readonly byPod = new Map<string, Allocation>();
  private seq = 0;
  private readonly types: Map<string, GpuTypeSpec>;

  constructor(readonly catalogue: GpuCatalogue) {
    this.types = new Map(catalogue.gpuTypes.map((t) => [t.id, t]));
  }

  reset(): void {
    this.byPod.clear();
  }

  gpuType(id: string): GpuTypeSpec | undefined {
    return this.types.get(id);
  }

  machine(id: string): MachineSpec | undefined {
    return this.catalogue.machines.find((m) => m.id === id);
  }

  private allocationsOn(machineId: string): Allocation[] {
    return [...this.byPod.values()].filter((a) => a.machineId === machineId);
  }

  /** GPUs of the machine nobody rents. */
  free(machine: MachineSpec): number {
    let used = machine.rentedByOthers;
    for (const a of this.byPod.values()) if (a.machineId === machine.id) used += a.gpus;
    return Math.max(0, machine.gpuCount - used);
  }

  /** Machines that could hold the pod at all (ignoring what is rented now). */
  eligible(f: MachineFilter): MachineSpec[] {
    const type = this.types.get(f.gpuTypeId);
    if (!type) return [];
    const cuda = f.allowedCudaVersions && f.allowedCudaVersions.length > 0 ? new Set(f.allowedCudaVersions) : null;
    return this.catalogue.machines.filter(
      (m) =>
        m.gpuTypeId === f.gpuTypeId &&
        (f.cloud === 'ALL' || m.cloud === f.cloud) &&
        priceOf(type, m.cloud) !== undefined &&
        (cuda === null || (m.cudaVersion !== null && cuda.has(m.cudaVersion))) &&
        f.gpuCount <= m.gpuCount &&
        (f.minVcpuCount === undefined || m.vcpuPerGpu * f.gpuCount >= f.minVcpuCount) &&
        (f.minMemoryInGb === undefined || m.memoryInGbPerGpu * f.gpuCount >= f.minMemoryInGb) &&
        (f.dataCenterId === undefined || m.dataCenterId === f.dataCenterId),
    );
  }

  /** Spot pods to interrupt on `machine` so that `gpus` fit there for on-demand; null if even that is not enough. */
  private reclaimFor(machine: MachineSpec, gpus: number): string[] | null {
    let free = this.free(machine);
    if (free >= gpus) return [];
    const spot = this.allocationsOn(machine.id)
      .filter((a) => a.kind === 'spot')
      .sort((a, b) => (a.bidPerGpuHr ?? 0) - (b.bidPerGpuHr ?? 0) || b.seq - a.seq);
    const out: string[] = [];
    for (const a of spot) {
      if (free >= gpus) break;
      out.push(a.podId);
      free += a.gpus;
    }
    return free >= gpus ? out : null;
  }

  private onDemandPrice(m: MachineSpec): number {
    const type = this.types.get(m.gpuTypeId);
    return (type && priceOf(type, m.cloud)?.onDemandPerGpuHr) ?? Number.POSITIVE_INFINITY;
  }

  /** On-demand: the cheapest machine with free GPUs; failing that, one where interrupting spot pods frees enough. */
  placeOnDemand(f: MachineFilter): Placement {
    const candidates = this.eligible(f).sort((a, b) => this.onDemandPrice(a) - this.onDemandPrice(b));
    const direct = candidates.find((m) => this.free(m) >= f.gpuCount);
    if (direct) return { ok: true, machine: direct, interrupt: [] };
    let best: { machine: MachineSpec; interrupt: string[] } | undefined;
    for (const m of candidates) {
      const interrupt = this.reclaimFor(m, f.gpuCount);
      if (interrupt !== null && (best === undefined || interrupt.length < best.interrupt.length)) best = { machine: m, interrupt };
    }
    return best ? { ok: true, ...best } : { ok: false, reason: 'no-instances' };
  }

  /** Spot: only free GPUs, on a machine whose cloud's minimum bid the bid meets. */
  placeSpot(f: MachineFilter, bidPerGpuHr: number): Placement {
    const candidates = this.eligible(f);
    if (candidates.length === 0) return { ok: false, reason: 'no-instances' };
    const type = this.types.get(f.gpuTypeId);
    const minOf = (m: MachineSpec) => (type && priceOf(type, m.cloud)?.minimumBidPerGpuHr) ?? Number.POSITIVE_INFINITY;
    const affordable = candidates.filter((m) => bidPerGpuHr >= minOf(m));
    if (affordable.length === 0) return { ok: false, reason: 'bid-too-low', minimumBidPerGpuHr: Math.min(...candidates.map(minOf)) };
    const m = affordable.sort((a, b) => minOf(a) - minOf(b)).find((x) => this.free(x) >= f.gpuCount);
    return m ? { ok: true, machine: m, interrupt: [] } : { ok: false, reason: 'no-instances' };
  }

  /** Resume on the pod's own machine (its volume lives there). */
  placeOnMachine(machine: MachineSpec, gpus: number, kind: PodKind, bidPerGpuHr?: number): Placement {
    if (kind === 'spot') {
      const type = this.types.get(machine.gpuTypeId);
      const min = (type && priceOf(type, machine.cloud)?.minimumBidPerGpuHr) ?? Number.POSITIVE_INFINITY;
      if ((bidPerGpuHr ?? 0) < min) return { ok: false, reason: 'bid-too-low', minimumBidPerGpuHr: min };
      return this.free(machine) >= gpus ? { ok: true, machine, interrupt: [] } : { ok: false, reason: 'no-instances' };
    }
    const interrupt = this.reclaimFor(machine, gpus);
    return interrupt === null ? { ok: false, reason: 'no-instances' } : { ok: true, machine, interrupt };
  }

  allocate(podId: string, machine: MachineSpec, gpus: number, kind: PodKind, bidPerGpuHr: number | null): void {
    this.byPod.set(podId, { podId, machineId: machine.id, gpus, kind, bidPerGpuHr, seq: this.seq++ });
  }

  release(podId: string): void {
    this.byPod.delete(podId);
  }

  holds(podId: string): boolean {
    return this.byPod.has(podId);
  }

  /** Move an allocation to a new pod id (the 'pod-resume-new-id' fault re-keys a pod). */
  rekey(oldId: string, newId: string): void {
    const a = this.byPod.get(oldId);
    if (!a) return;
    this.byPod.delete(oldId);
    this.byPod.set(newId, { ...a, podId: newId });
  }

  lowestPrice(type: GpuTypeSpec, q: LowestPriceQuery): LowestPrice {
    const cloud: CloudFilter = q.secureCloud === undefined ? 'ALL' : q.secureCloud ? 'SECURE' : 'COMMUNITY';
    const machines = this.eligible({
      gpuTypeId: type.id,
      gpuCount: q.gpuCount,
      cloud,
      allowedCudaVersions: q.allowedCudaVersions,
      minVcpuCount: q.minVcpuCount,
      minMemoryInGb: q.minMemoryInGb,
      dataCenterId: q.dataCenterId,
    });
    // All machines of the type in the cloud (any size), for the rented/total counts.
    const inCloud = this.catalogue.machines.filter((m) => m.gpuTypeId === type.id && (cloud === 'ALL' || m.cloud === cloud) && priceOf(type, m.cloud) !== undefined);
    let slots = 0;
    let freeSlots = 0;
    let maxFree = 0;
    for (const m of machines) {
      const free = this.free(m);
      slots += Math.floor(m.gpuCount / q.gpuCount);
      freeSlots += Math.floor(free / q.gpuCount);
      maxFree = Math.max(maxFree, free);
    }
    const share = slots === 0 ? 0 : freeSlots / slots;
    const stockStatus: StockStatus = freeSlots === 0 ? 'None' : share >= HIGH_SHARE ? 'High' : share >= MEDIUM_SHARE ? 'Medium' : 'Low';
    const availableGpuCounts: number[] = [];
    for (let n = 1; n <= maxFree; n++) availableGpuCounts.push(n);
    // Prices of the clouds that have machines of the type, rented out or not.
    const clouds = new Set<CloudKind>(inCloud.map((m) => m.cloud));
    const prices = [...clouds].map((c) => priceOf(type, c)).filter((x) => x !== undefined);
    const totalCount = inCloud.reduce((s, m) => s + m.gpuCount, 0);
    const rentedCount = inCloud.reduce((s, m) => s + (m.gpuCount - this.free(m)), 0);
    return {
      gpuName: type.displayName,
      gpuTypeId: type.id,
      minimumBidPrice: prices.length ? Math.min(...prices.map((x) => x.minimumBidPerGpuHr)) : null,
      uninterruptablePrice: prices.length ? Math.min(...prices.map((x) => x.onDemandPerGpuHr)) : null,
      minMemory: inCloud.length ? Math.min(...inCloud.map((m) => m.memoryInGbPerGpu * q.gpuCount)) : null,
      minVcpu: inCloud.length ? Math.min(...inCloud.map((m) => m.vcpuPerGpu * q.gpuCount)) : null,
      stockStatus,
      availableGpuCounts,
      maxUnreservedGpuCount: maxFree,
      totalCount,
      rentedCount,
      rentalPercentage: totalCount === 0 ? 0 : Math.round((rentedCount / totalCount) * 10_000) / 100,
    };
  }

  /** Free GPUs per type (for the emulator's info route). */
  summary(): Record<string, { free: number; total: number }> {
    const out: Record<string, { free: number; total: number }> = {};
    for (const m of this.catalogue.machines) {
      const e = (out[m.gpuTypeId] ??= { free: 0, total: 0 });
      e.free += this.free(m);
      e.total += m.gpuCount;
    }
    return out;
  }
}
