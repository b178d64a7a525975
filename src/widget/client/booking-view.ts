/**
 * The booking view (render() with a `service`): the service's open slots by day, a party size, and
 * hold → form → book, or the waitlist when a slot cannot take the party.
 */
import { bookingApi, type Answer, type Customer, type Held, type Slot } from './booking.js';
import { dateTimeFormat } from './format.js';
import type { Settings } from './settings.js';
import { applyStyles, h } from './view.js';

type Stage =
  | { kind: 'loading' }
  | { kind: 'error'; message: string; retry: boolean }
  | { kind: 'slots'; note: string }
  | { kind: 'busy'; message: string }
  /** `customer`: the visitor's, when the hold is the offer a waitlist join got at once (the form comes filled in). */
  | { kind: 'book'; hold: Held; note?: string; customer?: Customer }
  | { kind: 'waitlist'; slot: Slot; note?: string }
  | { kind: 'done'; message: string };

const day: Intl.DateTimeFormatOptions = { weekday: 'long', month: 'long', day: 'numeric' };
const time: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };

function countdown(expiresAt: string): string {
  const seconds = Math.max(0, Math.ceil((Date.parse(expiresAt) - Date.now()) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export function mountBooking(root: ShadowRoot, settings: Settings, logError: (message: string) => void): { stop(): void } {
  const status = h('p', { class: 'status', role: 'status' });
  const content = h('div', { class: 'content' });
  const widget = h('section', { class: 'widget', 'data-theme': settings.theme, 'aria-labelledby': 'heading' }, [
    h('div', { class: 'header' }, [h('h2', { id: 'heading' }, ['Book your visit'])]),
    status,
    content,
  ]);
  root.replaceChildren(widget);
  applyStyles(root);

  let timezone = 'UTC';
  let slots: Slot[] = [];
  let partySize = 1;
  let ticking: ReturnType<typeof setInterval> | undefined;
  const loading = new AbortController();
  const when = (slot: { startTime: string }) => dateTimeFormat(timezone, { ...day, ...time, timeZoneName: 'short' }).format(new Date(slot.startTime));

  const { token, apiBase } = settings;
  if (!token || !apiBase) {
    logError(token ? 'Cannot tell where the API is from the script address; pass the apiBase option.' : 'render() needs the token option (a widget token, wt_…).');
    show({ kind: 'error', message: token ? 'Booking is not possible right now.' : 'This booking widget has no token, so it cannot take bookings.', retry: false });
    return { stop() {} };
  }
  const api = bookingApi(apiBase, token, settings.service, settings.days, logError);

  function show(stage: Stage): void {
    clearInterval(ticking);
    widget.dataset['state'] = stage.kind;
    widget.setAttribute('aria-busy', String(stage.kind === 'loading' || stage.kind === 'busy'));
    status.dataset['kind'] = stage.kind;
    status.textContent = statusText(stage);
    content.replaceChildren(...body(stage));
    // The button that led here is gone: keyboard and screen reader users continue in the form.
    if ((stage.kind === 'book' || stage.kind === 'waitlist') && !stage.note) root.getElementById('name')?.focus();
  }

  function statusText(stage: Stage): string {
    switch (stage.kind) {
      case 'loading':
        return 'Loading times…';
      case 'slots':
        return stage.note || (slots.length === 0 ? 'No times are open in the coming days.' : `Pick a time for ${partySize === 1 ? '1 person' : `${partySize} people`}.`);
      case 'book':
        if (stage.note) return stage.note;
        return `${stage.customer ? 'Places just freed up: ' : ''}${when(stage.hold)} is held for you until ${dateTimeFormat(timezone, { ...time, timeZoneName: 'short' }).format(new Date(stage.hold.expiresAt))}.`;
      case 'waitlist':
        if (stage.note) return stage.note;
        return `${when(stage.slot)} has no room for ${partySize}. Join the waitlist to be offered places that free up.`;
      default:
        return stage.message;
    }
  }

  function body(stage: Stage): Node[] {
    if (stage.kind === 'error') return stage.retry ? [button('Try again', 'retry', () => void load())] : [];
    if (stage.kind === 'slots') return [partyInput(), ...slotList()];
    if (stage.kind === 'book')
      return [
        held(stage.hold),
        customerForm(
          'Book',
          (customer) => book(stage.hold, customer),
          () => release(stage.hold),
          stage.customer,
        ),
      ];
    if (stage.kind === 'waitlist')
      return [
        customerForm(
          'Join the waitlist',
          (customer) => join(stage.slot, customer),
          () => show({ kind: 'slots', note: '' }),
        ),
      ];
    if (stage.kind === 'done') return [button('Book another time', 'retry', () => void load())];
    return [];
  }

  function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
    const element = h('button', { type: 'button', class: className }, [label]);
    element.addEventListener('click', onClick);
    return element;
  }

  function partyInput(): HTMLElement {
    const largest = Math.max(1, ...slots.map((slot) => slot.capacity));
    const input = h('input', { id: 'party', type: 'number', min: '1', max: String(largest), value: String(partySize), inputmode: 'numeric' });
    input.addEventListener('change', () => {
      const size = Number(input.value);
      partySize = Number.isInteger(size) && size >= 1 ? Math.min(size, largest) : 1;
      show({ kind: 'slots', note: '' });
      root.getElementById('party')?.focus();
    });
    return h('p', { class: 'party' }, [h('label', { for: 'party' }, ['Party size ']), input]);
  }

  function slotList(): HTMLElement[] {
    const byDay = new Map<string, Slot[]>();
    const dayName = dateTimeFormat(timezone, day);
    for (const slot of slots) {
      const name = dayName.format(new Date(slot.startTime));
      byDay.set(name, [...(byDay.get(name) ?? []), slot]);
    }
    const clock = dateTimeFormat(timezone, time);
    return [...byDay].map(([name, daySlots]) =>
      h('div', { class: 'day' }, [
        h('h3', {}, [name]),
        h(
          'ul',
          { class: 'slots', role: 'list' },
          daySlots.map((slot) => {
            const fits = slot.remaining >= partySize;
            const left = fits ? `${slot.remaining} ${slot.remaining === 1 ? 'place' : 'places'} left` : 'full: join the waitlist';
            return h('li', {}, [
              button(`${clock.format(new Date(slot.startTime))}, ${left}`, fits ? 'slot' : 'slot full', () => (fits ? hold(slot) : show({ kind: 'waitlist', slot }))),
            ]);
          }),
        ),
      ]),
    );
  }

  function held(hold: Held): HTMLElement {
    const left = h('span', { class: 'countdown' }, [countdown(hold.expiresAt)]);
    ticking = setInterval(() => {
      left.textContent = countdown(hold.expiresAt);
      if (Date.parse(hold.expiresAt) <= Date.now()) expired();
    }, 1000);
    return h('p', { class: 'held' }, [`${hold.partySize === 1 ? '1 place' : `${hold.partySize} places`} held · time left `, left]);
  }

  function customerForm(action: string, submit: (customer: Customer) => void, cancel: () => void, filled?: Customer): HTMLFormElement {
    const field = (id: string, label: string, type: string, autocomplete: string, value = '') =>
      h('p', { class: 'field' }, [h('label', { for: id }, [label]), h('input', { id, name: id, type, autocomplete, required: '', value })]);
    const form = h('form', { class: 'customer' }, [
      field('name', 'Name', 'text', 'name', filled?.name),
      field('email', 'Email', 'email', 'email', filled?.email),
      h('p', { class: 'actions' }, [h('button', { type: 'submit', class: 'primary' }, [action]), button('Cancel', 'secondary', cancel)]),
    ]);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = (name: string) => String(new FormData(form).get(name) ?? '').trim();
      submit({ name: value('name'), email: value('email') });
    });
    return form;
  }

  /** What a refusal means for the visitor; a form refused for its fields (422) stays, with the reason. */
  function failed(answer: Exclude<Answer<unknown>, { kind: 'ok' }>, form?: Extract<Stage, { kind: 'book' | 'waitlist' }>): void {
    if (answer.code === 'hold_expired') return expired();
    if (form && answer.status === 422 && answer.detail) return show({ ...form, note: answer.detail });
    show({ kind: 'error', message: answer.message, retry: answer.retry });
  }

  function expired(): void {
    void load('Your hold expired, so the places were given back. Pick a time again.');
  }

  async function load(note = ''): Promise<void> {
    show({ kind: 'loading' });
    const answer = await api.slots(loading.signal);
    if (!answer) return;
    if (answer.kind !== 'ok') return failed(answer);
    ({ timezone, slots } = answer.value);
    show({ kind: 'slots', note });
  }

  async function hold(slot: Slot): Promise<void> {
    show({ kind: 'busy', message: `Holding ${when(slot)}…` });
    const answer = await api.hold(slot, partySize);
    if (!answer) return;
    if (answer.kind === 'ok') return show({ kind: 'book', hold: answer.value });
    if (answer.code === 'slot_full') return show({ kind: 'waitlist', slot });
    failed(answer);
  }

  async function release(hold: Held): Promise<void> {
    show({ kind: 'busy', message: 'Giving the places back…' });
    const answer = await api.release(hold);
    if (answer && answer.kind !== 'ok') return failed(answer);
    await load('The places were given back.');
  }

  async function book(hold: Held, customer: Customer): Promise<void> {
    show({ kind: 'busy', message: 'Booking…' });
    const answer = await api.book(hold, customer);
    if (!answer) return;
    if (answer.kind !== 'ok') return failed(answer, { kind: 'book', hold });
    show({ kind: 'done', message: `Booked: ${when(hold)} for ${hold.partySize}. Your booking id is ${answer.value.id}.` });
  }

  async function join(slot: Slot, customer: Customer): Promise<void> {
    show({ kind: 'busy', message: 'Joining the waitlist…' });
    const answer = await api.joinWaitlist(slot, partySize, customer);
    if (!answer) return;
    if (answer.kind !== 'ok') return failed(answer, { kind: 'waitlist', slot });
    // Places were free as it joined: the entry was offered them at once, held for the visitor to book.
    if (answer.value.offer) return show({ kind: 'book', hold: answer.value.offer, customer });
    const place = answer.value.placeInLine;
    show({ kind: 'done', message: `You are on the waitlist for ${when(slot)}${place ? `, number ${place} in line` : ''}. If places free up, they are offered in that order.` });
  }

  void load();
  return {
    stop() {
      loading.abort();
      clearInterval(ticking);
    },
  };
}
