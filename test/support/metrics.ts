/** An unlabelled gauge (`name`) as the server's /metrics shows it now. */
async function gauge(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)![1]);
}

/** `hallowgate_subscriptions_active` as the server's /metrics shows it now. */
export function subscriptionsActive(baseUrl: string): Promise<number> {
  return gauge(baseUrl, 'hallowgate_subscriptions_active');
}

/** `hallowgate_webhook_queue_depth` as the server's /metrics shows it now. */
export function webhookQueueDepth(baseUrl: string): Promise<number> {
  return gauge(baseUrl, 'hallowgate_webhook_queue_depth');
}
