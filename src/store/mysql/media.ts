/**
 * A listing's images and terms as the plugin's REST replies show them, built from WordPress's own
 * rows: an attachment's `_wp_attached_file` and PHP-serialised `_wp_attachment_metadata` give the
 * image object (the gallery size as `src`, `full`, `medium` and `thumbnail` as WordPress's
 * image_downsize() answers them), term rows give term objects, parents before their children.
 */
import type { ImageObject, TermObject } from '../../domain/model.js';
import { phpObject, type SiteOptions, type SizeBox } from './site.js';

export interface AttachmentRow {
  ID: number | string;
  post_title: string;
  post_excerpt: string;
  post_mime_type: string;
  file: string | null;
  meta: string | null;
  alt: string | null;
}

interface StoredSize {
  file: string;
  width: number;
  height: number;
}

/** WordPress's wp_constrain_dimensions(): the size that fits the box, keeping the ratio. */
export function constrain(width: number, height: number, maxWidth: number, maxHeight: number): [number, number] {
  if (!maxWidth && !maxHeight) return [width, height];
  let widthRatio = 1;
  let heightRatio = 1;
  let didWidth = false;
  let didHeight = false;
  if (maxWidth > 0 && width > 0 && width > maxWidth) {
    widthRatio = maxWidth / width;
    didWidth = true;
  }
  if (maxHeight > 0 && height > 0 && height > maxHeight) {
    heightRatio = maxHeight / height;
    didHeight = true;
  }
  const smaller = Math.min(widthRatio, heightRatio);
  const larger = Math.max(widthRatio, heightRatio);
  const ratio =
    (maxWidth > 0 && Math.round(width * larger) > maxWidth) || (maxHeight > 0 && Math.round(height * larger) > maxHeight)
      ? smaller
      : larger;
  let w = Math.max(1, Math.round(width * ratio));
  let h = Math.max(1, Math.round(height * ratio));
  // As WordPress: a result one pixel short of the box, through rounding, is the box.
  if (didWidth && w === maxWidth - 1) w = maxWidth;
  if (didHeight && h === maxHeight - 1) h = maxHeight;
  return [w, h];
}

/** wp_image_matches_ratio(): whether two sizes have the same shape, to a pixel. */
function matchesRatio(w1: number, h1: number, w2: number, h2: number): boolean {
  const [cw, ch] = w1 > w2 ? constrain(w1, h1, w2, 0) : constrain(w2, h2, w1, 0);
  const [ew, eh] = w1 > w2 ? [w2, h2] : [w1, h1];
  return Math.abs(cw - ew) <= 1 && Math.abs(ch - eh) <= 1;
}

function storedSizes(meta: Record<string, unknown>): Record<string, StoredSize> {
  const sizes = (meta.sizes ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, StoredSize> = {};
  for (const [name, size] of Object.entries(sizes)) {
    if (size && typeof size.file === 'string') out[name] = { file: size.file, width: Number(size.width), height: Number(size.height) };
  }
  return out;
}

/** One attachment as the plugin's image object, or undefined when it has no file. */
export function imageObject(row: AttachmentRow, site: SiteOptions): ImageObject | undefined {
  if (!row.file) return undefined;
  const meta = phpObject(row.meta ?? undefined);
  const fullUrl = `${site.uploadsUrl}/${row.file}`;
  const dir = fullUrl.slice(0, fullUrl.lastIndexOf('/') + 1);
  const width = Number(meta.width) || 0;
  const height = Number(meta.height) || 0;
  const sizes = storedSizes(meta);
  // image_downsize(): the stored size, else the full image shown at the size's box.
  const downsize = (name: string, box: SizeBox) => {
    const stored = sizes[name];
    if (stored) return { src: dir + stored.file, width: stored.width, height: stored.height };
    const [w, h] = constrain(width, height, box.width, box.height);
    return { src: fullUrl, width: w, height: h };
  };
  const gallery = downsize('rtcl-gallery', site.sizes.gallery);
  return {
    ID: Number(row.ID),
    title: row.post_title,
    caption: row.post_excerpt,
    url: fullUrl,
    alt: row.alt ?? '',
    src: gallery.src,
    srcset: srcset(gallery, { src: fullUrl, width, height }, sizes, dir),
    sizes: {
      full: { src: fullUrl, width, height },
      medium: downsize('medium', site.sizes.medium),
      thumbnail: downsize('thumbnail', site.sizes.thumbnail),
    },
    mime_type: row.post_mime_type,
    src_w: gallery.width,
    src_h: gallery.height,
    srcset_sizes: `(max-width: ${gallery.width}px) 100vw, ${gallery.width}px`,
  };
}

type Shown = { src: string; width: number; height: number };

/** wp_calculate_image_srcset(), simplified: the sizes of the shown one's shape up to 2048 wide; false for fewer than two. */
function srcset(shown: Shown, full: Shown, sizes: Record<string, StoredSize>, dir: string): string | false {
  const candidates = new Map<number, string>();
  for (const size of [full, ...Object.values(sizes).map((s) => ({ src: dir + s.file, width: s.width, height: s.height }))]) {
    if (size.width > 2048 || !matchesRatio(shown.width, shown.height, size.width, size.height)) continue;
    if (!candidates.has(size.width)) candidates.set(size.width, size.src);
  }
  if (candidates.size < 2) return false;
  return [...candidates].map(([w, src]) => `${src} ${w}w`).join(', ');
}

export interface TermRow {
  object_id?: number | string;
  term_id: number | string;
  name: string;
  slug: string;
  term_group: number | string;
  term_taxonomy_id: number | string;
  taxonomy: string;
  description: string;
  parent: number | string;
  count: number | string;
}

export function termObject(row: TermRow): TermObject {
  return {
    term_id: Number(row.term_id),
    name: row.name,
    slug: row.slug,
    term_group: Number(row.term_group),
    term_taxonomy_id: Number(row.term_taxonomy_id),
    taxonomy: row.taxonomy,
    description: row.description,
    parent: Number(row.parent),
    count: Number(row.count),
    filter: 'raw',
  };
}

/**
 * A listing's terms of one taxonomy in the order the plugin shows them: each parent before its
 * children (`New York`, then `Brooklyn`), siblings by name.
 */
export function hierarchical(terms: TermObject[]): TermObject[] {
  const ids = new Set(terms.map((t) => t.term_id));
  const byName = (a: TermObject, b: TermObject) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.term_id - b.term_id);
  const out: TermObject[] = [];
  const visit = (parent: number | null) => {
    const level = terms.filter((t) => (parent === null ? !ids.has(t.parent) : t.parent === parent)).sort(byName);
    for (const t of level) {
      if (out.includes(t)) continue;
      out.push(t);
      visit(t.term_id);
    }
  };
  visit(null);
  for (const t of terms) if (!out.includes(t)) out.push(t);
  return out;
}
