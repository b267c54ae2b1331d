/** The reply settings every presenter of a conversation or a listing takes (config and the site). */
import type { FavouritesPresentation } from './favourites.js';
import type { ListingPresentation } from './listing.js';
import type { FileAddress } from './chat/attachments.js';
import type { TimeFormatter } from './time.js';

export interface Presentation extends ListingPresentation, FavouritesPresentation {
  formatTime: TimeFormatter;
  /** FILES_ACCESS=participants: signs the addresses of the files Souk serves (auth/file-addresses.ts). */
  fileAddress?: FileAddress;
}
