/**
 * How long a notification's encoded body may be. Below the history's cut of a record
 * (HISTORY_LIMITS.recordChars), so the closing tag is never what gets cut off.
 */
const BODY_MAX = 8_000;

/**
 * The text of a `notification` record: `body` inside `<notification>…</notification>`, with
 * `&`, `<` and `>` written as XML entities. The model is told that text so wrapped comes from
 * the service, and a body carries what others wrote (a skill's summary or error, a skill's
 * name), so nothing in it may close the wrapper or open another. Entities keep what it says
 * readable. Every producer of notification text goes through here.
 */
export function notificationText(body: string): string {
  return `<notification>${cutEncoded(encodeXmlText(body))}</notification>`;
}

/**
 * A person's message as the model is shown it: the notification tag, opening or closing, in
 * any case or spacing, has its `<` encoded, so a message cannot pass for one from the
 * service. Anything else, code included, is left as the person wrote it.
 */
export function withoutNotificationTags(text: string): string {
  return text.replace(/<(\s*\/?\s*notification)/gi, '&lt;$1');
}

function encodeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

/** Cuts an encoded body to BODY_MAX, never through the middle of an entity. */
function cutEncoded(encoded: string): string {
  if (encoded.length <= BODY_MAX) return encoded;
  const head = encoded.slice(0, BODY_MAX).replace(/&[a-z]*$/, '');
  return `${head} […cut: ${encoded.length - head.length} more characters]`;
}
