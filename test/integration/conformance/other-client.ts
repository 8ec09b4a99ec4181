// Another client of a target's shared endpoint, for tests and proofs at the border: `lanes` loops of
// /runsync jobs of `delayS` emulated seconds sent straight to the emulator, until stopped (at most
// `maxJobs` jobs), so every worker stays busy with jobs qbench did not send.

export interface OtherClient {
  /** Stop the loops; resolves the jobs that completed. */
  stop(): Promise<number>;
}

export function otherClient(url: string, apiKey: string, lanes: number, delayS: number, maxJobs: number, endpoint = 'demo'): OtherClient {
  let stopped = false;
  let sent = 0;
  let completed = 0;
  const loop = async () => {
    while (!stopped && sent < maxJobs) {
      sent += 1;
      const r = await fetch(`${url}/v2/${endpoint}/runsync?wait=60000`, {
        method: 'POST', headers: { authorization: apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { mock_delay: delayS, mock_return: 'other client' } }),
      }).catch(() => undefined);
      await r?.text();
      if (r?.status === 200) completed += 1;
    }
  };
  const loops = Array.from({ length: lanes }, loop);
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return completed;
    },
  };
}
