/**
 * Runs `poll` at start, then `everyMs` after each run ends (never two at once), until stopped;
 * stop() waits for the run under way. A worker's loop: the webhook deliveries, the waitlist offers.
 */
export function pollingLoop(everyMs: number, poll: () => Promise<void>) {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let underWay: Promise<void> | undefined;

  function run() {
    underWay = poll().finally(() => {
      underWay = undefined;
      if (running) timer = setTimeout(run, everyMs);
    });
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      run();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await underWay;
    },
  };
}
