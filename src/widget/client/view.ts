import type { WidgetEvent } from './events.js';
import { formatDistance, formatPlaces, formatPrice, formatWhen } from './format.js';
import type { Badge } from './places.js';
import { css } from './styles.js';
import { categoryLabel, type Settings } from './settings.js';

export type ViewState = { kind: 'loading' } | { kind: 'events'; events: WidgetEvent[] } | { kind: 'error'; message: string; retry: boolean };

type Child = Node | string | null | false;

/** Builds an element; text always goes in as text nodes, so data from the API can never become markup. */
export function h<Tag extends keyof HTMLElementTagNameMap>(tag: Tag, attributes: Record<string, string | undefined> = {}, children: Child[] = []): HTMLElementTagNameMap[Tag] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(name, value);
  for (const child of children) if (child) element.append(child);
  return element;
}

function eventImage(image: NonNullable<WidgetEvent['image']>, item: HTMLLIElement): HTMLImageElement {
  const element = h('img', {
    class: 'image',
    src: image.url,
    alt: image.alt,
    loading: 'lazy',
    decoding: 'async',
    width: image.width === null ? undefined : String(image.width),
    height: image.height === null ? undefined : String(image.height),
  });
  // A broken image would show a torn icon and its alt text; the card reads better without it.
  element.addEventListener('error', () => {
    element.remove();
    item.classList.remove('has-image');
  });
  return element;
}

function eventItem(event: WidgetEvent, now: Date, places: HTMLElement): HTMLLIElement {
  const item = h('li', { class: event.image ? 'event has-image' : 'event' });
  const title = event.url ? h('a', { href: event.url, target: '_blank', rel: 'noopener' }, [event.title, h('span', { class: 'hidden' }, [' (opens in a new tab)'])]) : event.title;
  const where = [event.venue, event.city].filter(Boolean).join(', ');
  const price = formatPrice(event.priceMin, event.priceMax, event.currency);
  item.append(
    ...(event.image ? [eventImage(event.image, item)] : []),
    h('div', { class: 'body' }, [
      h('h3', { class: 'title' }, [title]),
      h('p', { class: 'when' }, [h('time', { datetime: event.startsAt }, [formatWhen(event.startsAt, event.endsAt, event.timezone, now)])]),
      where && h('p', { class: 'where' }, [where]),
      event.distanceKm !== null && h('p', { class: 'distance' }, [formatDistance(event.distanceKm)]),
      price && h('p', { class: 'price' }, [price]),
      places,
    ]),
  );
  return item;
}

function heading(settings: Settings, events: WidgetEvent[]): HTMLElement {
  // The API's spelling of the city ("Salem") reads better than what was typed ("salem").
  const city = events[0]?.city || settings.city;
  const category = categoryLabel(settings.category);
  const nearby = events.some((event) => event.distanceKm !== null);
  return h('div', { class: 'header' }, [
    h('h2', { id: 'heading' }, [nearby ? 'Halloween events nearby' : city ? `Halloween events in ${city}` : 'Halloween events']),
    category && h('p', { class: 'subtitle' }, [category]),
  ]);
}

function emptyMessage(settings: Settings): string {
  const kind = settings.category ? `${categoryLabel(settings.category).toLowerCase()} events` : 'events';
  return `No upcoming ${kind}${settings.city ? ` in ${settings.city}` : ''}.`;
}

function statusText(state: ViewState, settings: Settings): string {
  if (state.kind === 'loading') return 'Loading events…';
  if (state.kind === 'error') return state.message;
  const count = state.events.length;
  return count === 0 ? emptyMessage(settings) : `${count} ${count === 1 ? 'event' : 'events'}`;
}

let sharedSheet: CSSStyleSheet | undefined;

/**
 * A constructed style sheet, shared by every widget on the page, is not inline CSS as far as a
 * host page's Content-Security-Policy is concerned; browsers without them get a <style> element.
 */
export function applyStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sharedSheet) {
      sharedSheet = new CSSStyleSheet();
      sharedSheet.replaceSync(css);
    }
    root.adoptedStyleSheets = [sharedSheet];
  } else {
    root.prepend(h('style', {}, [css]));
  }
}

export interface View {
  paint(state: ViewState): void;
  /** Shows an event's places left (none: no badge); a change from one known count to another is announced. */
  showPlaces(event: WidgetEvent, badge: Badge | null): void;
  /** What became of the visitor's location, shown beside the Near me button. */
  showLocation(message: string): void;
}

export interface ViewActions {
  retry(): void;
  /** Present when the visitor may share their location: the Near me button calls it. */
  nearMe?: () => void;
}

/** Places left, announced politely in one region, so a change is read out without the whole list. */
function announcer(): { element: HTMLElement; say(message: string): void } {
  const element = h('p', { class: 'hidden', 'aria-live': 'polite' });
  let queued: string[] = [];
  return {
    element,
    say(message) {
      // The changes one notice brings come together, and are read as one announcement.
      if (queued.push(message) === 1) {
        queueMicrotask(() => {
          element.textContent = queued.join('. ');
          queued = [];
        });
      }
    },
  };
}

function nearBar(nearMe: () => void, note: HTMLElement): HTMLElement {
  const button = h('button', { class: 'primary near', type: 'button' }, ['Near me']);
  button.addEventListener('click', nearMe);
  return h('div', { class: 'near-bar' }, [button, note]);
}

/**
 * Lays the widget out in `root` once; paint() then swaps the content. The status line stays the
 * same element, so screen readers announce its changes (loading, a count, empty, an error).
 */
export function mountView(root: ShadowRoot, settings: Settings, actions: ViewActions): View {
  let header: HTMLElement = h('div');
  const status = h('p', { class: 'status', role: 'status' });
  const content = h('div', { class: 'content' });
  const locationNote = h('p', { class: 'location', role: 'status' });
  const announcements = announcer();
  /** Each listed event's places line, and the badge it shows. */
  let placesLines = new Map<WidgetEvent, { line: HTMLElement; badge: Badge | null }>();
  const widget = h('section', { class: 'widget', 'data-theme': settings.theme, 'aria-labelledby': 'heading' }, [
    header,
    actions.nearMe ? nearBar(actions.nearMe, locationNote) : null,
    status,
    content,
    announcements.element,
    settings.attributionLink &&
      h('div', { class: 'footer' }, [
        h('a', { class: 'attribution', href: settings.attributionLink, target: '_blank', rel: 'noopener' }, [
          'Events by Hallowgate',
          h('span', { class: 'hidden' }, [' (opens in a new tab)']),
        ]),
      ]),
  ]);
  root.replaceChildren(widget);
  applyStyles(root);

  return {
    paint(state) {
      const events = state.kind === 'events' ? state.events : [];
      const kind = state.kind === 'events' && events.length === 0 ? 'empty' : state.kind;
      widget.dataset['state'] = kind;
      widget.setAttribute('aria-busy', String(kind === 'loading'));
      const nextHeader = heading(settings, events);
      header.replaceWith(nextHeader);
      header = nextHeader;
      status.dataset['kind'] = kind;
      status.textContent = statusText(state, settings);
      status.classList.toggle('hidden', kind === 'events');
      const button = state.kind === 'error' && state.retry ? h('button', { class: 'retry', type: 'button' }, ['Try again']) : null;
      button?.addEventListener('click', actions.retry);
      const now = new Date();
      placesLines = new Map(events.map((event) => [event, { line: h('p', { class: 'places', hidden: '' }), badge: null }]));
      // role=list: Safari drops list semantics from lists styled with list-style:none.
      const list =
        kind === 'events'
          ? h(
              'ul',
              { class: 'events', role: 'list' },
              events.map((event) => eventItem(event, now, placesLines.get(event)!.line)),
            )
          : null;
      const shown = list ?? button;
      content.replaceChildren(...(shown ? [shown] : []));
    },
    showPlaces(event, badge) {
      const places = placesLines.get(event);
      if (!places) return;
      const known = (shown: Badge | null) => shown !== null && shown.kind !== 'checking';
      const text = badge ? formatPlaces(badge, event.timezone, new Date()) : '';
      if (known(places.badge) && known(badge)) announcements.say(`${event.title}: ${text}`);
      places.badge = badge;
      places.line.hidden = badge === null;
      places.line.dataset['places'] = badge?.kind ?? '';
      places.line.textContent = text;
    },
    showLocation(message) {
      locationNote.textContent = message;
    },
  };
}
