/** The reply settings every presenter of a conversation or a listing takes (config and the site). */
import type { FavouritesPresentation } from './favourites.js';
import type { ListingPresentation } from './listing.js';
import type { TimeFormatter } from './time.js';

export interface Presentation extends ListingPresentation, FavouritesPresentation {
  formatTime: TimeFormatter;
}
