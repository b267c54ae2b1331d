/**
 * A small demo marketplace for `souk demo`: three users, four listings with images and terms.
 * amina (user 1) is the demo's buyer and youssef (user 2, owner of listing 101) its seller.
 */
import type { ImportDocument } from './import-document.js';

/** The ids and logins the demo's commands use. */
export const DEMO_BUYER = { id: 1, login: 'amina' } as const;
export const DEMO_SELLER = { id: 2, login: 'youssef' } as const;
export const DEMO_LISTING_ID = 101;

/**
 * Password hashes for the buyer and the seller. `souk demo` makes them from passwords it generates on
 * each run and prints: demo-only credentials, never built into the code, so no installation has a
 * password anyone could know in advance. Without them the users keep whatever password they have.
 */
export interface DemoPasswordHashes {
  buyer: string;
  seller: string;
}

function image(id: number, slug: string, title: string, siteUrl: string) {
  const base = `${siteUrl}/wp-content/uploads/2026/11/${slug}`;
  const size = (suffix: string, width: number, height: number) => ({ src: `${base}${suffix}.jpg`, width, height });
  return {
    ID: id,
    title,
    caption: '',
    url: `${base}.jpg`,
    alt: title,
    src: `${base}.jpg`,
    srcset: `${base}.jpg 1200w, ${base}-300x225.jpg 300w`,
    sizes: { full: size('', 1200, 900), medium: size('-300x225', 300, 225), thumbnail: size('-150x150', 150, 150) },
    mime_type: 'image/jpeg',
    src_w: 1200,
    src_h: 900,
    srcset_sizes: '(max-width: 1200px) 100vw, 1200px',
  };
}

function term(id: number, name: string, slug: string, taxonomy: string, count: number, parent = 0) {
  return { term_id: id, name, slug, term_group: 0, term_taxonomy_id: id, taxonomy, description: '', parent, count, filter: 'raw' };
}

export function demoDocument(siteUrl: string, passwordHashes?: DemoPasswordHashes): ImportDocument {
  const bikes = term(11, 'Bikes', 'bikes', 'rtcl_category', 2);
  const furniture = term(12, 'Furniture', 'furniture', 'rtcl_category', 2);
  const casablanca = term(21, 'Casablanca', 'casablanca', 'rtcl_location', 2);
  const rabat = term(22, 'Rabat', 'rabat', 'rtcl_location', 2);
  return {
    users: [
      {
        id: DEMO_BUYER.id,
        login: DEMO_BUYER.login,
        name: 'Amina K.',
        email: 'amina@example.com',
        phone: '+212 600 000 001',
        whatsapp: '+212600000001',
        ...(passwordHashes && { password_hash: passwordHashes.buyer }),
      },
      {
        id: DEMO_SELLER.id,
        login: DEMO_SELLER.login,
        name: 'Youssef B.',
        email: 'youssef@example.com',
        website: 'https://youssef.example.com',
        ...(passwordHashes && { password_hash: passwordHashes.seller }),
      },
      { id: 3, login: 'sara', name: 'Sara L.', email: 'sara@example.com' },
    ],
    listings: [
      {
        id: DEMO_LISTING_ID,
        owner_id: DEMO_SELLER.id,
        title: 'Road bike',
        slug: 'road-bike',
        price: '1200',
        images: [image(501, 'road-bike', 'Road bike', siteUrl)],
        category: [bikes],
        location: [casablanca],
      },
      {
        id: 102,
        owner_id: 2,
        title: 'City bike with basket',
        slug: 'city-bike',
        price: '350.5',
        images: [image(502, 'city-bike', 'City bike', siteUrl)],
        category: [bikes],
        location: [rabat],
      },
      {
        id: 103,
        owner_id: 3,
        title: 'Oak dining table',
        slug: 'oak-dining-table',
        price: '4500',
        images: [image(503, 'oak-table', 'Oak table', siteUrl)],
        category: [furniture],
        location: [casablanca],
      },
      {
        id: 104,
        owner_id: 1,
        title: 'Reading armchair',
        slug: 'reading-armchair',
        status: 'pending',
        price: '',
        images: [],
        category: [furniture],
        location: [rabat],
      },
    ],
  };
}
