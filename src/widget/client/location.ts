/** The visitor's location, asked for only when they press Near me (the browser then asks for consent). */

export type Located = { kind: 'point'; lat: number; lng: number } | { kind: 'unknown'; message: string };

const answerWithinMs = 15_000;
/** A position this recent is good enough: a visitor rarely moves far while choosing an evening out. */
const recentEnoughMs = 10 * 60_000;
const notSorted = 'so events are not sorted by distance.';

/** Resolves to the visitor's position, or to a readable reason why there is none; never rejects. */
export function locateVisitor(): Promise<Located> {
  return new Promise((resolve) => {
    if (!('geolocation' in navigator)) {
      resolve({ kind: 'unknown', message: `This browser cannot share your location, ${notSorted}` });
      return;
    }
    navigator.geolocation.getCurrentPosition(
      (position) => resolve({ kind: 'point', lat: position.coords.latitude, lng: position.coords.longitude }),
      (error) =>
        resolve({
          kind: 'unknown',
          message: error.code === error.PERMISSION_DENIED ? `Your location was not shared, ${notSorted}` : `Your location could not be found, ${notSorted}`,
        }),
      { timeout: answerWithinMs, maximumAge: recentEnoughMs },
    );
  });
}
