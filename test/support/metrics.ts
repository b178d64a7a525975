/** `hallowgate_subscriptions_active` as the server's /metrics shows it now. */
export async function subscriptionsActive(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  return Number(/^hallowgate_subscriptions_active (\S+)$/m.exec(text)![1]);
}
