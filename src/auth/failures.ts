/** Why a request was not let in. src/http maps each to the interface's error shape. */
export type AuthFailure =
  | 'rest_api_disabled'
  | 'api_key_missing'
  | 'api_key_invalid'
  | 'authorization_missing'
  | 'authorization_not_bearer'
  | 'token_malformed'
  | 'token_bad_signature'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'token_without_expiry'
  | 'token_without_issue_time'
  | 'token_time_not_numeric'
  | 'token_lifetime_too_long'
  | 'token_revoked'
  | 'not_logged_in';

/**
 * A failed authentication: the credentials were missing or wrong, which is what a client guessing
 * keys or forging tokens gets. These are counted per client address. Not counted: the REST switch
 * (the installation's choice), and a caller whose credentials are genuine but who is not logged in
 * (no token on the toggle, or a verified token whose user is gone or disabled).
 */
export const isFailedAuthentication = (failure: AuthFailure): boolean => failure !== 'rest_api_disabled' && failure !== 'not_logged_in';
