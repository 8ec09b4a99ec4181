// Root resolvers of the GraphQL pod interface (§4.3): each mutation validates its input,
// asks the pod store, and turns a refusal into a GraphQL error in the WIRE-COMPAT shape
// (the "no longer any instances available" text for an empty stock, extensions.code RUNPOD).
import { NO_INSTANCES_MESSAGE } from '../../spec/index.js';
import type { TemplateStore } from '../rest/template-store.js';
import type { GpuTypeSpec } from './gpu-catalogue.js';
import { inputError, parseBidResumeInput, parseDeployInput, parseLowestPriceInput, parsePodIdInput, parseResumeInput, refusal, type TemplateDefaults } from './inputs.js';
import type { Pod, PodStore, ResumeOutcome } from './pod-store.js';
import { gpuTypeView, podView } from './pod-view.js';
import type { Stock } from './stock.js';

export interface RequestContext {
  /** One clock reading for the whole request. */
  readonly nowMs: number;
}

type Args = { input?: unknown };

/** Message for a resume the pod's host cannot take now (its volume keeps the pod on that machine). */
export const HOST_FULL_MESSAGE = 'There are not enough free GPUs on the host machine to start this pod.';

function money(n: number): string {
  return `$${n.toFixed(3)}/GPU/hr`;
}

export function createRootValue(store: PodStore, stock: Stock, templates: TemplateStore): Record<string, unknown> {
  const view = (p: Pod, ctx: RequestContext) => podView(p, store, stock, ctx.nowMs);

  const gpuTypeOf = (id: string): GpuTypeSpec => {
    const t = stock.gpuType(id);
    if (!t) throw inputError([{ field: 'input.gpuTypeId', rule: `unknown GPU type "${id}" (query gpuTypes for the ids)` }]);
    return t;
  };

  const templateOf = (id: string): TemplateDefaults | null | 'serverless' => {
    const t = templates.get(id);
    if (!t) return null;
    if (t.fields.isServerless === true) return 'serverless';
    return t.fields;
  };

  const deploy = (args: Args, ctx: RequestContext, spot: boolean) => {
    const req = parseDeployInput(args.input, spot, templateOf);
    const type = gpuTypeOf(req.gpuTypeId);
    const out = store.deploy(req, type, spot ? 'spot' : 'on-demand', req.bidPerGpu ?? null);
    if (out.kind === 'no-instances') throw refusal(NO_INSTANCES_MESSAGE);
    if (out.kind === 'bid-too-low') {
      throw refusal(`Your bid of ${money(req.bidPerGpu ?? 0)} is below the minimum bid price of ${money(out.minimumBidPerGpuHr)} for ${type.displayName}.`);
    }
    return view(out.pod, ctx);
  };

  const resumed = (out: ResumeOutcome, podId: string, ctx: RequestContext, bid?: number) => {
    switch (out.kind) {
      case 'ok':
        return view(out.pod, ctx);
      case 'not-found':
        throw refusal(`Pod not found: ${podId}`);
      case 'already-running':
        throw refusal(`Pod ${podId} is already running.`);
      case 'host-full':
        throw refusal(HOST_FULL_MESSAGE);
      case 'cuda-mismatch':
        throw refusal(`The host machine of pod ${podId} runs CUDA ${out.cudaVersion ?? 'none'}, which is not in allowedCudaVersions.`);
      case 'bid-too-low':
        throw refusal(`Your bid of ${money(bid ?? 0)} is below the minimum bid price of ${money(out.minimumBidPerGpuHr)} for this pod's GPU.`);
    }
  };

  return {
    myself: (_args: unknown, ctx: RequestContext) => {
      const pods = store.list();
      return {
        id: 'user_emulated',
        pods: pods.map((p) => view(p, ctx)),
        currentSpendPerHr: Math.round(pods.filter((p) => p.desiredStatus === 'RUNNING').reduce((s, p) => s + store.costPerHr(p), 0) * 1000) / 1000,
      };
    },
    pod: (args: Args, ctx: RequestContext) => {
      const { podId } = parsePodIdInput(args.input);
      const p = store.get(podId);
      return p ? view(p, ctx) : null;
    },
    gpuTypes: (args: Args) => {
      const filter = (args.input ?? {}) as { id?: string | null; ids?: (string | null)[] | null };
      const ids = new Set<string>();
      if (typeof filter.id === 'string') ids.add(filter.id);
      for (const id of filter.ids ?? []) if (typeof id === 'string') ids.add(id);
      const types = stock.catalogue.gpuTypes.filter((t) => ids.size === 0 || ids.has(t.id));
      return types.map((t) =>
        gpuTypeView(t, stock, (a: Args) => {
          const q = parseLowestPriceInput(a.input);
          return stock.lowestPrice(t, q);
        }),
      );
    },
    podFindAndDeployOnDemand: (args: Args, ctx: RequestContext) => deploy(args, ctx, false),
    podRentInterruptable: (args: Args, ctx: RequestContext) => deploy(args, ctx, true),
    podResume: (args: Args, ctx: RequestContext) => {
      const input = parseResumeInput(args.input);
      return resumed(store.resume(input.podId, { gpuCount: input.gpuCount, kind: 'on-demand', allowedCudaVersions: input.allowedCudaVersions }), input.podId, ctx);
    },
    podBidResume: (args: Args, ctx: RequestContext) => {
      const input = parseBidResumeInput(args.input);
      return resumed(
        store.resume(input.podId, { gpuCount: input.gpuCount, kind: 'spot', bidPerGpuHr: input.bidPerGpu, allowedCudaVersions: input.allowedCudaVersions }),
        input.podId,
        ctx,
        input.bidPerGpu,
      );
    },
    podStop: (args: Args, ctx: RequestContext) => {
      const { podId } = parsePodIdInput(args.input);
      const p = store.stop(podId);
      if (!p) throw refusal(`Pod not found: ${podId}`);
      return view(p, ctx);
    },
    podTerminate: (args: Args) => {
      const { podId } = parsePodIdInput(args.input);
      if (!store.terminate(podId)) throw refusal(`Pod not found: ${podId}`);
      return null;
    },
  };
}
