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
  | 'not_logged_in';
