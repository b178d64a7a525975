import { mountBooking } from './booking-view.js';
import { eventsUrl, loadEvents, type WidgetEvent } from './events.js';
import { liveConnection, type LiveConnection } from './live.js';
import { locateVisitor } from './location.js';
import { followPlaces, type Places } from './places.js';
import { optionsOfElement, readSettings, type Settings } from './settings.js';
import { mountView, type View } from './view.js';

const prefix = '[HalloweenEvents]';
const logError = (message: string) => console.error(prefix, message);
const warn = (message: string) => console.warn(prefix, message);

/** Containers this script has mounted into, with how to stop the view's work in flight (another render() does). */
const mounts = new WeakMap<Element, { root: ShadowRoot; stop: (() => void) | null }>();

type Target = Element | 'not yet parsed' | null;

function findContainer(target: unknown): Target {
  if (target instanceof Element) return target;
  if (typeof target !== 'string') {
    logError('render(selector, options) needs a CSS selector such as "#events", or an element.');
    return null;
  }
  let found: Element | null;
  try {
    found = document.querySelector(target);
  } catch {
    logError(`"${target}" is not a valid CSS selector.`);
    return null;
  }
  if (found) return found;
  // The async script can run before the parser reaches the container.
  if (document.readyState === 'loading') return 'not yet parsed';
  logError(`No element matches "${target}"; add the container (e.g. <div id="events"></div>) before calling render().`);
  return null;
}

function shadowRootOf(container: Element): ShadowRoot | null {
  const mounted = mounts.get(container);
  if (mounted) {
    mounted.stop?.();
    return mounted.root;
  }
  try {
    const root = container.attachShadow({ mode: 'open' });
    mounts.set(container, { root, stop: null });
    return root;
  } catch {
    logError(`<${container.localName}> cannot hold the widget (it may already have a shadow root); use an empty <div>.`);
    return null;
  }
}

/** The places of the listed events, live over the page's connection while the list is shown. */
function livePlaces(settings: Settings & { apiBase: string; places: number }, view: View): { follow(events: WidgetEvent[]): void; stop(): void } {
  let connection: LiveConnection | null = null;
  let places: Places | null = null;
  return {
    follow(events) {
      places?.stop();
      connection ??= liveConnection(settings.apiBase, settings.token, logError);
      places = followPlaces(connection, events, settings.places, settings.window, view.showPlaces, warn);
    },
    stop() {
      places?.stop();
      connection?.release();
      places = connection = null;
    },
  };
}

function mount(container: Element, root: ShadowRoot, options: unknown, scriptDirectory: string | null): void {
  const settings = readSettings({ ...optionsOfElement(container), ...(typeof options === 'object' ? options : {}) }, scriptDirectory, warn);
  if (settings.service) {
    mounts.set(container, { root, stop: mountBooking(root, settings, logError).stop });
    return;
  }
  let point = settings.near === 'me' ? null : settings.near;
  const view = mountView(root, settings, { retry: () => start(), ...(settings.near === 'me' ? { nearMe } : {}) });
  let live: ReturnType<typeof livePlaces> | null = null;

  /** The Near me button: the browser asks the visitor for consent; without a position the list stays as it is. */
  function nearMe(): void {
    view.showLocation('Finding your location…');
    void locateVisitor().then((located) => {
      if (located.kind === 'unknown') {
        view.showLocation(located.message);
        return;
      }
      point = located;
      view.showLocation('Showing the events nearest you first.');
      start();
    });
  }

  function start(): void {
    if (!settings.token) {
      logError('render() needs the token option (a widget token, wt_…).');
      view.paint({ kind: 'error', message: 'This events widget has no token, so it cannot show events.', retry: false });
      return;
    }
    if (!settings.apiBase) {
      logError('Cannot tell where the API is from the script address; pass the apiBase option.');
      view.paint({ kind: 'error', message: 'Events could not be loaded right now.', retry: false });
      return;
    }
    const load = new AbortController();
    const { apiBase, places } = settings;
    // A list loaded again (Try again, Near me) follows its own events.
    live?.stop();
    live ??= places === null ? null : livePlaces({ ...settings, apiBase, places }, view);
    mounts.set(container, {
      root,
      stop: () => {
        load.abort();
        live?.stop();
      },
    });
    view.paint({ kind: 'loading' });
    void loadEvents(eventsUrl(settings, apiBase, new Date(), point), settings.token, load.signal, logError).then((result) => {
      if (!result) return;
      view.paint(result);
      if (result.kind === 'events') live?.follow(result.events);
    });
  }
  start();
}

/** HalloweenEvents.render(): never throws into the host page; problems go to the widget or the console. */
export function render(target: unknown, options: unknown, scriptDirectory: string | null): void {
  try {
    const container = findContainer(target);
    if (container === 'not yet parsed') {
      document.addEventListener('DOMContentLoaded', () => render(target, options, scriptDirectory), { once: true });
    } else if (container) {
      const root = shadowRootOf(container);
      if (root) mount(container, root, options, scriptDirectory);
    }
  } catch (error) {
    logError(`could not render: ${String(error)}`);
  }
}
