import type { Hold } from '../../generated/prisma/client.js';
import { builder, nodeScope } from '../../graphql/builder.js';
import { upperCaseEnum } from '../../graphql/enums.js';
import { inputRules } from '../../graphql/input-coercion.js';
import { Customer, CustomerInput } from '../graphql.js';
import { holdLifetime, createHoldSchema, createWaitlistEntrySchema } from '../validation.js';
import { holdStatus, waitlistEntryStatus } from './hold.js';
import { createHold, findOwnHold, releaseHold } from './holds.js';
import { createWaitlistEntry, findOwnWaitlistEntry, placeInLine, waitlistStatusWhere, withdrawWaitlistEntry } from './waitlist.js';
import { keysetPage } from '../../graphql/keyset-pages.js';

/**
 * Holds and waitlists: answers depend on the clock (a hold expires with no write), so none is kept by
 * the response cache. A write's answer is read again with what the operation selects, as it committed.
 */

// A booking widget token sees the hold or entry it made in its mutation's answer, never by id or in a list.
const readScopes = nodeScope(['bookings:read', 'bookings:write'], ['bookings:book']);
const ownRootField = { authScopes: { anyScope: ['bookings:read', 'bookings:write'] } } as const;
/** The writes a visitor makes through a booking widget (bookings:book); withdrawing an entry is not one. */
const visitorWrite = { authScopes: { anyScope: ['bookings:write', 'bookings:book'] } } as const;

const HoldStatus = upperCaseEnum(
  'HoldStatus',
  ['held', 'released', 'expired', 'converted'],
  'HELD until expiresAt, then EXPIRED; RELEASED by its holder; CONVERTED into a booking.',
);
const WaitlistStatus = upperCaseEnum(
  'WaitlistStatus',
  ['waiting', 'offered', 'booked', 'expired', 'withdrawn'],
  'WAITING in line; OFFERED a hold; BOOKED with it; EXPIRED (the offer lapsed, or the slot started); WITHDRAWN by its holder.',
);

builder.prismaNode('Hold', {
  id: { field: 'id' },
  extensions: readScopes,
  nullable: true,
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '' }),
  description: "Places of a slot kept for a while: counted like a booking's until expiresAt, and for nothing after.",
  fields: (t) => ({
    serviceId: t.exposeID('serviceId'),
    service: t.relation('service'),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime' }),
    partySize: t.exposeInt('partySize'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    status: t.field({ type: HoldStatus, select: { status: true, expiresAt: true }, resolve: (hold, _args, context) => holdStatus(hold, context.services.clock()) }),
    bookingId: t.exposeID('bookingId', { nullable: true, description: 'The booking made with it, once CONVERTED.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Offer = builder.objectRef<Pick<Hold, 'id' | 'expiresAt'>>('WaitlistOffer').implement({
  description: "The hold an offer made for the entry: book it with createBooking's holdId before expiresAt.",
  fields: (t) => ({
    holdId: t.exposeID('id'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

builder.prismaNode('WaitlistEntry', {
  id: { field: 'id' },
  extensions: readScopes,
  nullable: true,
  findUnique: (id, context) => ({ id, accountId: context.principal?.accountId ?? '' }),
  description: 'A place in line for a full slot: freed places are offered to entries in the order they joined, each that fits getting a hold.',
  fields: (t) => ({
    serviceId: t.exposeID('serviceId'),
    service: t.relation('service'),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    partySize: t.exposeInt('partySize'),
    customer: t.field({ type: Customer, select: { customerName: true, customerEmail: true }, resolve: (entry) => ({ name: entry.customerName, email: entry.customerEmail }) }),
    status: t.field({
      type: WaitlistStatus,
      select: { status: true, startTime: true, hold: { select: { status: true, expiresAt: true } } },
      resolve: (entry, _args, context) => waitlistEntryStatus(entry, entry.hold, context.services.clock()),
    }),
    placeInLine: t.int({
      nullable: true,
      description: "While WAITING: 1 + the slot's entries waiting that joined before it (the fairness rule offers places in this order); null otherwise.",
      select: { serviceId: true, startTime: true, position: true, status: true },
      resolve: (entry, _args, context) => placeInLine(context, entry),
    }),
    offer: t.field({
      type: Offer,
      nullable: true,
      description: 'The last offer made to the entry; null before the first.',
      select: { hold: { select: { id: true, expiresAt: true } } },
      resolve: (entry) => entry.hold,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  hold: t.prismaField({
    type: 'Hold',
    ...ownRootField,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const hold = await findOwnHold(context, String(args.id));
      return context.prisma.hold.findUniqueOrThrow({ ...query, where: { id: hold.id } });
    },
  }),
  waitlistEntry: t.prismaField({
    type: 'WaitlistEntry',
    ...ownRootField,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const entry = await findOwnWaitlistEntry(context, String(args.id));
      return context.prisma.waitlistEntry.findUniqueOrThrow({ ...query, where: { id: entry.id } });
    },
  }),
  waitlistEntries: t.prismaConnection({
    type: 'WaitlistEntry',
    cursor: 'id',
    ...ownRootField,
    description: "The account's waitlist entries in the order they joined.",
    args: { serviceId: t.arg.id(), status: t.arg({ type: WaitlistStatus }) },
    resolve: async (query, _root, args, context) => {
      const accountId = context.principal!.accountId;
      const { page, past } = await keysetPage(
        query,
        async (id) => (await context.prisma.waitlistEntry.findFirst({ where: { id, accountId }, select: { position: true } }))?.position,
      );
      return context.prisma.waitlistEntry.findMany({
        ...page,
        where: {
          accountId,
          ...(past ? { position: past } : {}),
          ...(args.serviceId ? { serviceId: String(args.serviceId) } : {}),
          ...(args.status ? waitlistStatusWhere(args.status, context.services.clock()) : {}),
        },
        orderBy: { position: 'asc' },
      });
    },
  }),
}));

const lifetimeDescription = `Seconds, ${holdLifetime.min} to ${holdLifetime.max}; ${holdLifetime.default} when left out.`;

const CreateHoldInput = builder.inputType('CreateHoldInput', {
  extensions: inputRules((context) => createHoldSchema(context.services.clock())),
  fields: (t) => ({
    serviceId: t.id({ required: true }),
    startTime: t.field({ type: 'DateTime', required: true, description: 'A slot of the service that has not started.' }),
    partySize: t.int({ description: 'Places to hold: 1 (the default) up to the capacity of the service.' }),
    expiresInSeconds: t.int({ description: `How long the places are kept. ${lifetimeDescription}` }),
  }),
});

const CreateWaitlistEntryInput = builder.inputType('CreateWaitlistEntryInput', {
  extensions: inputRules((context) => createWaitlistEntrySchema(context.services.clock())),
  fields: (t) => ({
    serviceId: t.id({ required: true }),
    startTime: t.field({ type: 'DateTime', required: true, description: 'A slot of the service that has not started.' }),
    partySize: t.int({ description: 'Places wanted: 1 (the default) up to the capacity of the service.' }),
    customer: t.field({ type: CustomerInput, required: true }),
    offerExpiresInSeconds: t.int({ description: `How long an offer's hold lasts. ${lifetimeDescription}` }),
  }),
});

builder.mutationFields((t) => {
  /** A create's Idempotency-Key: a retry answers what the first request made, as it is now. */
  const idempotencyKey = t.arg.string({
    description: 'Answers what the first request made, as it is now, when sent again with the same input within 24 h; another input with it is refused.',
  });
  return {
    createHold: t.prismaField({
      type: 'Hold',
      ...visitorWrite,
      description: 'Keeps places of a slot while a customer completes a booking (createBooking with holdId); slot_full when they are not free.',
      args: { input: t.arg({ type: CreateHoldInput, required: true }), idempotencyKey },
      resolve: async (query, _root, args, context) =>
        context.prisma.hold.findUniqueOrThrow({ ...query, where: { id: (await createHold(context, args.input, args.idempotencyKey ?? null)).id } }),
    }),
    releaseHold: t.prismaField({
      type: 'Hold',
      ...visitorWrite,
      description: "Gives the hold's places back now (offered to the slot's waitlist); a hold no longer held is answered as it is.",
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, args, context) => context.prisma.hold.findUniqueOrThrow({ ...query, where: { id: (await releaseHold(context, String(args.id))).id } }),
    }),
    createWaitlistEntry: t.prismaField({
      type: 'WaitlistEntry',
      ...visitorWrite,
      description: 'Joins the line for a slot; if places are free for it now, the entry is answered already offered a hold.',
      args: { input: t.arg({ type: CreateWaitlistEntryInput, required: true }), idempotencyKey },
      resolve: async (query, _root, args, context) =>
        context.prisma.waitlistEntry.findUniqueOrThrow({ ...query, where: { id: (await createWaitlistEntry(context, args.input, args.idempotencyKey ?? null)).id } }),
    }),
    withdrawWaitlistEntry: t.prismaField({
      type: 'WaitlistEntry',
      authScopes: { scope: 'bookings:write' },
      description: "Leaves the line; an offered entry's hold is released and offered to the next. An entry no longer waiting or offered is answered as it is.",
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, args, context) =>
        context.prisma.waitlistEntry.findUniqueOrThrow({ ...query, where: { id: (await withdrawWaitlistEntry(context, String(args.id))).id } }),
    }),
  };
});
