/**
 * Souk and one of the bench's floors side by side on a small bench data set, as real processes:
 * what the floors' byte tests (test/bench/) compare.
 */
import { buildDataset, type Dataset } from '../../bench/dataset.js';
import type { DatasetSizes } from '../../bench/options.js';
import { startSouk, type ServerProcess } from '../../bench/processes.js';
import { signTokens } from '../../bench/scenarios.js';

export interface SoukBesideFloor {
  data: Dataset;
  souk: ServerProcess;
  floor: ServerProcess;
  /** The API key and the signed token of the data set's user `user`. */
  headers(user: number): Record<string, string>;
  stop(): Promise<void>;
}

/** The data set built at `databaseUrl`, Souk on it, and the floor `startFloor` starts beside it. */
export async function soukBesideFloor(
  databaseUrl: string,
  sizes: DatasetSizes,
  startFloor: (data: Dataset) => Promise<ServerProcess>,
): Promise<SoukBesideFloor> {
  const data = await buildDataset({ url: databaseUrl, sizes });
  const tokens = signTokens(data);
  const [souk, floor] = await Promise.all([startSouk('souk', { databaseUrl }), startFloor(data)]);
  return {
    data,
    souk,
    floor,
    headers: (user) => ({ 'x-api-key': data.apiKey, authorization: `Bearer ${tokens[user]}` }),
    stop: async () => void (await Promise.all([souk.stop(), floor.stop()])),
  };
}
