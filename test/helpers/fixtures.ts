/** The marketplace most tests start from, in the import document's format. */
import type { Insertable } from 'kysely';
import type { ImportDocument } from '../../src/cli/import-document.js';
import type { MessagesTable } from '../../src/store/common/schema.js';

export const SITE_URL = 'https://souk.example';

export function image(id: number, name: string) {
  const base = `${SITE_URL}/wp-content/uploads/${name}`;
  return {
    ID: id,
    title: name,
    caption: `A photo of ${name}`,
    url: `${base}.jpg`,
    alt: name,
    src: `${base}.jpg`,
    srcset: false as const,
    sizes: {
      full: { src: `${base}.jpg`, width: 1024, height: 768 },
      medium: { src: `${base}-300x225.jpg`, width: 300, height: 225 },
      thumbnail: { src: `${base}-150x150.jpg`, width: 150, height: 150 },
    },
    mime_type: 'image/jpeg',
    src_w: 1024,
    src_h: 768,
    srcset_sizes: '',
  };
}

export function term(id: number, name: string, taxonomy: string) {
  return {
    term_id: id,
    name,
    slug: name.toLowerCase(),
    term_group: 0,
    term_taxonomy_id: id + 100,
    taxonomy,
    description: '',
    parent: 0,
    count: 3,
    filter: 'raw',
  };
}

export const USERS = { amina: 1, youssef: 2, sara: 3, disabled: 4 } as const;
export const LISTINGS = { bike: 101, draft: 102, table: 103, aminasOwn: 104, trashed: 105 } as const;

export function marketplace(): ImportDocument {
  return {
    users: [
      {
        id: 1,
        login: 'amina',
        name: 'Amina K.',
        email: 'Amina@Example.com ',
        phone: '+212 600',
        whatsapp: '',
        website: '',
        profile_picture: '',
      },
      {
        id: 2,
        login: 'youssef',
        name: 'Youssef B.',
        email: 'youssef@example.com',
        website: 'https://y.example',
        profile_picture: 'https://cdn.example/y.png',
      },
      { id: 3, login: 'sara', email: 'sara@example.com' },
      { id: 4, login: 'ghost', name: 'Disabled', email: 'ghost@example.com', disabled: true },
    ],
    listings: [
      {
        id: 101,
        owner_id: 2,
        title: 'Road bike',
        slug: 'road-bike',
        price: '1200',
        images: [image(501, 'road-bike'), { ...image(502, 'road-bike-side'), srcset: 'a.jpg 300w' }],
        category: [term(11, 'Bikes', 'rtcl_category'), term(12, 'Sport', 'rtcl_category')],
        location: [term(21, 'Casablanca', 'rtcl_location')],
      },
      { id: 102, owner_id: 2, title: 'Draft lamp', status: 'draft', price: '15.5' },
      { id: 103, owner_id: 3, title: 'Oak table', slug: 'oak-table', status: 'expired', price: '' },
      { id: 104, owner_id: 1, title: "Amina's chair", slug: 'chair', price: '80' },
      { id: 105, owner_id: 2, title: 'Old sofa', slug: 'old-sofa', status: 'trash', price: '10' },
    ],
  };
}

/** A row of the messages table: "hi" from `sourceId` in conversation `conId`, unread, unless `fields` say otherwise. */
export function messageRow(conId: number, sourceId: number, fields: Partial<Insertable<MessagesTable>> = {}): Insertable<MessagesTable> {
  return {
    con_id: conId,
    source_id: sourceId,
    message: 'hi',
    type: 'text',
    attachments: null,
    meta: null,
    temp_id: null,
    created_at: 1,
    is_read: 0,
    ...fields,
  };
}
