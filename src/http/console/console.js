/* global document */
// The console's one script of its own: times, written in UTC by the server, shown in the reader's zone;
// the zone kept in a cookie, so that the overview's "today" starts at the reader's midnight.
function keepZone() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) document.cookie = `souk_console_zone=${encodeURIComponent(zone)}; Path=/console; SameSite=Strict; Max-Age=31536000`;
}
keepZone();
function localTimes(root) {
  for (const element of root.querySelectorAll('time[datetime]')) {
    const at = new Date(element.dateTime);
    if (Number.isNaN(at.getTime())) continue;
    element.title = element.dateTime;
    element.textContent = at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
}
document.addEventListener('DOMContentLoaded', () => localTimes(document));
document.addEventListener('htmx:afterSwap', (event) => localTimes(event.target));
