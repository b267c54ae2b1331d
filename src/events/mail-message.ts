/**
 * The mail about messages waiting (docs/mail.md), as the plugin's UnreadMessageEmail names it:
 * subject `[{site_title}] New Messages Waiting ({listing_title})`; a text part and an HTML part
 * saying who wrote, about which listing (its title and link), the new messages (text escaped in
 * the HTML, attachments by name) and where to answer; a one-click unsubscribe (RFC 8058).
 */
import type { Listing, Message, User } from '../domain/model.js';
import type { OutgoingMail } from './mail-transport.js';

export interface WaitingMessages {
  siteTitle: string;
  from: { name: string; address: string };
  recipient: User;
  sender: User;
  listing: Listing | undefined;
  listingUrl: string | undefined;
  conversationUrl: string;
  unsubscribeUrl: string;
  /** Oldest first. */
  messages: Message[];
  /** How many more, older, are not shown. */
  more: number;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A header's text on one line (a title with a line break must not start another header). */
const oneLine = (text: string) => text.replace(/[\r\n\t]+/g, ' ').trim();

export const displayName = (user: User) => user.name.trim() || user.login;

export function mailSubject(siteTitle: string, listingTitle: string): string {
  return oneLine(`[${siteTitle}] New Messages Waiting (${listingTitle})`);
}

function attachmentNames(message: Message): string[] {
  return (message.attachments ?? []).map((a, i) => oneLine(a.name ?? '') || `file ${i + 1}`);
}

export function composeWaitingMail(w: WaitingMessages): OutgoingMail {
  const who = displayName(w.sender);
  const title = w.listing?.title ?? '';
  const count = w.messages.length + w.more;
  const intro = `${who} sent you ${count === 1 ? 'a new message' : `${count} new messages`} about ${title ? `"${title}"` : 'a listing'}.`;

  const text: string[] = [`Hello ${displayName(w.recipient)},`, '', intro];
  if (w.listingUrl) text.push(`Listing: ${w.listingUrl}`);
  text.push('');
  if (w.more > 0) text.push(`(${w.more} earlier message${w.more === 1 ? '' : 's'} not shown)`, '');
  for (const m of w.messages) {
    if (m.text.trim() !== '') text.push(`> ${m.text.trim().replace(/\r?\n/g, '\n> ')}`);
    for (const name of attachmentNames(m)) text.push(`> [attachment: ${name}]`);
    text.push('');
  }
  text.push(`Answer: ${w.conversationUrl}`, '', '--', `To stop these e-mails: ${w.unsubscribeUrl}`);

  const listingHtml = w.listingUrl ? `<a href="${escapeHtml(w.listingUrl)}">${escapeHtml(title)}</a>` : escapeHtml(title);
  const messagesHtml = w.messages
    .map((m) => {
      const body = m.text.trim() === '' ? '' : `<p style="white-space:pre-wrap;margin:0">${escapeHtml(m.text.trim())}</p>`;
      const files = attachmentNames(m).map((name) => `<p style="margin:0">&#128206; ${escapeHtml(name)}</p>`);
      return `<blockquote style="border-left:3px solid #ccc;margin:8px 0;padding:4px 8px">${body}${files.join('')}</blockquote>`;
    })
    .join('\n');
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(mailSubject(w.siteTitle, title))}</title></head><body>`,
    `<p>Hello ${escapeHtml(displayName(w.recipient))},</p>`,
    `<p>${escapeHtml(who)} sent you ${count === 1 ? 'a new message' : `${count} new messages`} about ${listingHtml || 'a listing'}.</p>`,
    w.more > 0 ? `<p>(${w.more} earlier message${w.more === 1 ? '' : 's'} not shown)</p>` : '',
    messagesHtml,
    `<p><a href="${escapeHtml(w.conversationUrl)}">Answer ${escapeHtml(who)}</a></p>`,
    `<hr><p style="font-size:small">To stop these e-mails: <a href="${escapeHtml(w.unsubscribeUrl)}">unsubscribe</a>.</p>`,
    '</body></html>',
  ].join('\n');

  return {
    from: { name: oneLine(w.from.name), address: w.from.address },
    to: w.recipient.email.trim(),
    subject: mailSubject(w.siteTitle, title),
    text: text.join('\n'),
    html,
    headers: {
      'List-Unsubscribe': `<${w.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
