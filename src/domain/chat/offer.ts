/**
 * my/chat/offer and my/chat/offer/respond (docs/offers.md): a price offered in a conversation, as
 * a message of type `offer` whose text the apps that know nothing of offers show ("Offer: $1,150
 * for Road bike"), and its answers by the other participant: accepted, declined or countered (a new
 * offer). An offer is answered once; accepting one declines the conversation's other pending ones.
 */
import type { Conversation, Listing, Message, Offer, OfferStatus, User } from '../model.js';
import type { OfferTerms, Repositories } from '../ports.js';
import {
  checkMessageInput,
  newMessage,
  openFor,
  otherLeft,
  otherParticipant,
  type ChatLimits,
  type StartConversationError,
} from './common.js';
import { startConversation, type ChatStore } from './conversation.js';
import { appendMessage, recordNewMessage } from './events.js';
import { closedParticipant } from '../moderation.js';
import { blockedEitherWay } from '../privacy/common.js';

const DAY_MS = 86_400_000;
/** Digits an amount's whole part may have: a bound for listings without a price. */
const MAX_WHOLE_DIGITS = 15;

export interface OfferRules {
  /** How long an offer may be answered (OFFER_TTL_S). */
  ttlMs: number;
  /** An offer is at most this many times the listing's price, when it has one (OFFER_MAX_RATIO). */
  maxRatio: number;
  /** Offers one participant may make in one conversation in a day (OFFERS_PER_CONVERSATION_PER_DAY). */
  perConversationPerDay: number;
}

/** The marketplace's money: its currency, and a price as the listing's price reads (D7), in plain text. */
export interface OfferMoney {
  /** ISO 4217 code. */
  currency: string;
  decimals: number;
  /** "$1,150" */
  priceText(amount: string): string;
}

export interface OfferDeps {
  store: ChatStore;
  limits: ChatLimits;
  rules: OfferRules;
  money: OfferMoney;
}

export type OfferError =
  | StartConversationError
  /** N3: not a participant, or no such conversation or message. */
  | 'forbidden'
  | 'other_left'
  /** Not a positive decimal within the currency's decimals. */
  | 'amount_invalid'
  /** Over OFFER_MAX_RATIO times the listing's price, or its whole part too long. */
  | 'amount_too_high'
  | 'currency_mismatch'
  | 'too_many_offers'
  /** A counter without an amount. */
  | 'amount_required'
  | 'not_an_offer'
  | 'own_offer'
  | 'already_answered'
  | 'expired'
  /** The store keeps no offers (a WordPress site with the 2.x plugin's tables). */
  | 'unsupported';

type Refused = { ok: false; error: OfferError };
const refused = (error: OfferError): Refused => ({ ok: false, error });

/** `created`: what this request stored, for the abuse limits (a start's conversation too). */
export type OfferResult = { ok: true; value: Message; created: { conversation: boolean; message: boolean } } | Refused;

/**
 * The amount as a canonical decimal string ("1150", "1150.5"): a JSON number or a string of digits
 * with an optional fraction, positive, with no more decimals than the currency has. Null otherwise.
 */
export function parseAmount(raw: unknown, decimals: number): string | null {
  const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return null;
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals || /^0*$/.test(whole + fraction)) return null;
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A decimal string as an integer count of 10^-places. */
function scaled(decimal: string, places: number): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole + fraction.padEnd(places, '0').slice(0, places));
}

const PRICE = /^\d+(\.\d+)?$/;

/** Whether the amount is within the bounds: OFFER_MAX_RATIO times the listing's price when it has one. */
export function withinBounds(amount: string, listing: Pick<Listing, 'price'> | undefined, maxRatio: number): boolean {
  if (amount.split('.')[0]!.length > MAX_WHOLE_DIGITS) return false;
  const price = listing?.price.trim() ?? '';
  if (!PRICE.test(price) || /^[0.]*$/.test(price)) return true;
  const places = Math.max(amount.split('.')[1]?.length ?? 0, price.split('.')[1]?.length ?? 0);
  return scaled(amount, places) <= scaled(price, places) * BigInt(maxRatio);
}

/** The text an offer message shows: "Offer: $1,150 for Road bike", then the offerer's words, if any. */
function offerText(
  kind: 'Offer' | 'Counter-offer',
  amount: string,
  listing: Pick<Listing, 'title'> | undefined,
  money: OfferMoney,
  note: string,
) {
  const line = `${kind}: ${money.priceText(amount)}${listing ? ` for ${listing.title}` : ''}`;
  return note.trim() === '' ? line : `${line}\n${note}`;
}

const newOffer = (amount: string, money: OfferMoney, by: number, now: number, rules: OfferRules): Offer => ({
  amount,
  currency: money.currency,
  status: 'pending',
  by,
  expiresAt: now + rules.ttlMs,
});

export interface MakeOfferInput {
  /** The amount as sent (parseAmount). */
  amount: unknown;
  /** When given, it must be the marketplace's currency. */
  currency: string | null;
  /** Words the offerer adds below the offer's line (screened as a message's text); '' for none. */
  note: string;
}

/** The amount and currency checks that need no database: the canonical amount, or the refusal. */
function checkedAmount(input: MakeOfferInput, money: OfferMoney): string | Refused {
  if (input.currency !== null && input.currency.trim().toUpperCase() !== money.currency) return refused('currency_mismatch');
  return parseAmount(input.amount, money.decimals) ?? refused('amount_invalid');
}

/**
 * What a participant may write in the conversation, read once its row is held: the conversation
 * and the other participant, or why not (the rules of a message, domain/chat/message.ts).
 */
async function writable(
  repos: Repositories,
  conId: number,
  writerId: number,
): Promise<{ conversation: Conversation; other: number } | Refused> {
  const open = await openFor(repos, conId, writerId);
  if (!open) return refused('forbidden');
  if (otherLeft(open.conversation, open.side)) return refused('other_left');
  const other = otherParticipant(open.conversation, writerId);
  const [closed, blocked] = await Promise.all([closedParticipant(repos, writerId, other), blockedEitherWay(repos, writerId, other)]);
  if (closed) return refused('user_closed');
  if (blocked) return refused('blocked');
  return { conversation: open.conversation, other };
}

/** The listing's terms and the writer's offers of the last day: in one read where the store has one. */
async function offerTerms(repos: Repositories, conversation: Conversation, writerId: number, since: number): Promise<OfferTerms> {
  const offers = repos.offers!;
  if (offers.terms) return offers.terms(conversation, writerId, since);
  // Asked together (a database may answer them in one round trip).
  const [listing, made] = await Promise.all([
    repos.listings.findById(conversation.listingId),
    offers.madeSince(conversation.id, writerId, since),
  ]);
  return { listing, made };
}

/** The checks a new offer (or a counter) passes in a held conversation: bounds, the day's count, its text. */
async function offerMessage(
  repos: Repositories,
  deps: OfferDeps,
  conversation: Conversation,
  writerId: number,
  amount: string,
  kind: 'Offer' | 'Counter-offer',
  note: string,
  now: number,
) {
  const { listing, made } = await offerTerms(repos, conversation, writerId, now - DAY_MS);
  // The listing an offer is about must still be there.
  if (!listing || listing.status === 'trash') return refused('listing_not_found');
  if (!withinBounds(amount, listing, deps.rules.maxRatio)) return refused('amount_too_high');
  if (made >= deps.rules.perConversationPerDay) return refused('too_many_offers');
  const text = offerText(kind, amount, listing, deps.money, note);
  const invalid = checkMessageInput({ text, files: [] }, deps.limits);
  if (invalid) return refused(invalid);
  const offer = newOffer(amount, deps.money, writerId, now, deps.rules);
  return newMessage(conversation.id, writerId, { text, files: [], tempId: null, offer }, now);
}

/**
 * Events of a unit of work that writes to both participants' logs are logged holding the lower
 * id's log first: two such units (a mark-read, domain/chat/message.ts) take them in one order.
 */
const holdLowerLog = async (repos: Repositories, a: number, b: number) => repos.events?.hold?.(Math.min(a, b));

/** An offer in a conversation the caller takes part in (N3): its row held while the offer is checked and stored. */
export async function makeOffer(
  { store, ...deps }: OfferDeps,
  caller: User,
  conId: number,
  input: MakeOfferInput,
  now: number = Date.now(),
): Promise<OfferResult> {
  const amount = checkedAmount(input, deps.money);
  if (typeof amount !== 'string') return amount;
  return store.uow.transaction(async (repos): Promise<OfferResult> => {
    if (!repos.offers || !(await repos.offers.supported())) return refused('unsupported');
    // The lock asked first: what writable reads, asked with it, is read once it is held.
    const [, open] = await Promise.all([repos.offers.lockConversation(conId), writable(repos, conId, caller.id)]);
    if ('ok' in open) return open;
    const message = await offerMessage(repos, { store, ...deps }, open.conversation, caller.id, amount, 'Offer', input.note, now);
    if ('ok' in message) return message;
    const appended = await appendMessage(repos, message, open.other);
    await recordNewMessage(repos, appended, open.other, now);
    return { ok: true, value: appended.message, created: { conversation: false, message: true } };
  }, caller.id);
}

/**
 * An offer about a listing: in the caller's open conversation about it when there is one, else
 * the start of one (startConversation, with every rule of a start) whose first message is the offer.
 */
export async function offerOnListing(
  deps: OfferDeps,
  reads: Repositories,
  caller: User,
  listingId: number,
  input: MakeOfferInput,
  now: number = Date.now(),
): Promise<OfferResult> {
  const amount = checkedAmount(input, deps.money);
  if (typeof amount !== 'string') return amount;
  if (!reads.offers || !(await reads.offers.supported())) return refused('unsupported');
  // Read outside the start, for the offer's bounds and text; the start reads it again and applies its rules.
  const listing = await reads.listings.findById(listingId);
  if (listing && listing.ownerId !== caller.id) {
    const open = await reads.conversations.findOpen(listingId, caller.id, listing.ownerId);
    if (open) return makeOffer(deps, caller, open.id, input, now);
    if (!withinBounds(amount, listing, deps.rules.maxRatio)) return refused('amount_too_high');
  }
  const offer = newOffer(amount, deps.money, caller.id, now, deps.rules);
  const text = offerText('Offer', amount, listing, deps.money, input.note);
  const started = await startConversation(deps.store, caller, { listingId, text, files: [], tempId: null, offer }, deps.limits, now);
  return started.ok ? { ok: true, value: started.value.message, created: started.created } : started;
}

export type OfferAction = 'accept' | 'decline' | 'counter';

export interface RespondInput {
  messageId: number;
  action: OfferAction;
  /** A counter's amount, as sent; ignored otherwise. */
  amount: unknown;
}

const ANSWERED: Record<Exclude<OfferAction, 'counter'>, { status: OfferStatus; line: string }> = {
  accept: { status: 'accepted', line: 'Offer accepted' },
  decline: { status: 'declined', line: 'Offer declined' },
};

/** The offer answered, with what the answer changed. */
interface Answered {
  answer: Message;
  /** The offers whose status changed, as they are now: the one answered first. */
  changed: Message[];
  conversation: Conversation;
  other: number;
}

/** An offer the caller may answer, read once its conversation is held: one of the other participant's, pending and not expired. */
async function answerable(repos: Repositories, offerId: number, callerId: number, now: number) {
  const offer = await repos.messages.findById(offerId);
  if (!offer) return refused('forbidden');
  const open = await writable(repos, offer.conId, callerId);
  if ('ok' in open) return open;
  if (offer.type !== 'offer' || !offer.offer) return refused('not_an_offer');
  if (offer.offer.by === callerId || offer.sourceId === callerId) return refused('own_offer');
  if (offer.offer.status !== 'pending') return refused('already_answered');
  if (now >= offer.offer.expiresAt) return refused('expired');
  return { ...open, offer: offer as Message & { offer: Offer } };
}

const withStatus = (m: Message & { offer: Offer }, status: OfferStatus): Message => ({ ...m, offer: { ...m.offer, status } });

/** Settles the offer, and for an accept every other pending offer of the conversation (declined); the offers changed. */
async function settle(repos: Repositories, offer: Message & { offer: Offer }, status: OfferStatus): Promise<Message[] | null> {
  if (!(await repos.offers!.settle(offer, status))) return null;
  const changed = [withStatus(offer, status)];
  if (status !== 'accepted') return changed;
  for (const other of await repos.offers!.pendingOf(offer.conId)) {
    if (other.id !== offer.id && (await repos.offers!.settle(other, 'declined')))
      changed.push(withStatus(other as Message & { offer: Offer }, 'declined'));
  }
  return changed;
}

/**
 * The other participant answers an offer: accepts it (the conversation's other pending offers are
 * declined), declines it, or counters it with a new offer of their own. Each answer is a message
 * ("Offer accepted: $1,150", or the counter-offer), a `message.update` of each offer it changed for
 * both participants, and for an accept the webhook event `offer.accepted`.
 */
export async function respondToOffer(deps: OfferDeps, caller: User, input: RespondInput, now: number = Date.now()): Promise<OfferResult> {
  const counter = input.action === 'counter' ? parseAmount(input.amount, deps.money.decimals) : null;
  if (input.action === 'counter' && (input.amount === undefined || input.amount === null || input.amount === ''))
    return refused('amount_required');
  if (input.action === 'counter' && counter === null) return refused('amount_invalid');
  return deps.store.uow.transaction(async (repos): Promise<OfferResult> => {
    if (!repos.offers || !(await repos.offers.supported())) return refused('unsupported');
    // The lock asked first (the offer's conversation, found by the lock's own statement): what
    // answerable reads, asked with it, is read once it is held.
    const [, held] = await Promise.all([
      repos.offers.lockConversationOf(input.messageId),
      answerable(repos, input.messageId, caller.id, now),
    ]);
    if ('ok' in held) return held;
    const answer =
      counter === null
        ? answerMessage(held.offer, input.action as 'accept' | 'decline', caller.id, deps.money, now)
        : await offerMessage(repos, deps, held.conversation, caller.id, counter, 'Counter-offer', '', now);
    if ('ok' in answer) return answer;
    const status = counter === null ? ANSWERED[input.action as 'accept' | 'decline'].status : 'countered';
    const changed = await settle(repos, held.offer, status);
    if (!changed) return refused('already_answered');
    await holdLowerLog(repos, caller.id, held.other);
    const appended = await appendMessage(repos, answer, held.other);
    await recordNewMessage(repos, appended, held.other, now);
    await recordAnswer(repos, { answer: appended.message, changed, conversation: held.conversation, other: held.other }, caller.id, now);
    return { ok: true, value: appended.message, created: { conversation: false, message: true } };
  }, caller.id);
}

function answerMessage(offer: Message & { offer: Offer }, action: 'accept' | 'decline', callerId: number, money: OfferMoney, now: number) {
  const text = `${ANSWERED[action].line}: ${money.priceText(offer.offer.amount)}`;
  return newMessage(offer.conId, callerId, { text, files: [], tempId: null }, now);
}

/** `message.update` of each offer changed, for both participants (lower id first); `offer.accepted` for the webhooks. */
async function recordAnswer(repos: Repositories, a: Answered, callerId: number, now: number): Promise<void> {
  const events = repos.events;
  if (!events) return;
  const [first, second] = callerId < a.other ? [callerId, a.other] : [a.other, callerId];
  for (const userId of [first!, second!]) {
    for (const message of a.changed) await events.record(userId, { type: 'message.update', message }, now);
  }
  const accepted = a.changed[0]!;
  if (accepted.offer?.status !== 'accepted') return;
  const listing = await repos.listings.findById(a.conversation.listingId);
  await events.record(callerId, { type: 'offer.accepted', offer: accepted, conversation: a.conversation, listing }, now);
}
