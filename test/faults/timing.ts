import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';

/** The two kinds of outage every promise of the README's outage table is tested under (proxy.ts). */
export const outageModes = ['cut', 'freeze'] as const;

/** Added to every deadline a test asserts: a loaded 2-core machine answers late by this much at worst. */
export const slowMachineMarginMs = 2000;

/** Runs `request` and checks that it settled within `deadlineMs`; resolves with what it answered. */
export async function answersWithin<T>(deadlineMs: number, request: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  const answer = await request();
  const elapsedMs = performance.now() - startedAt;
  expect(elapsedMs, `answered after ${Math.round(elapsedMs)} ms`).toBeLessThan(deadlineMs);
  return answer;
}

/** /readyz: its status and what it says of each dependency. */
export async function readiness(baseUrl: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}/readyz`);
  return { status: response.status, body: await response.json() };
}
