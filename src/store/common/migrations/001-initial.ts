import { sql, type ColumnDefinitionBuilder, type Kysely, type RawBuilder } from 'kysely';

type Col = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** The column types each database spells its own way (given by sqlite/ and postgres/). */
export interface IdColumnTypes {
  /** A generated id's type, and what makes it a generated primary key. */
  serial: RawBuilder<unknown>;
  serialPrimaryKey: Col;
  /** A 64-bit integer: ids, and times in epoch milliseconds. */
  int64: 'bigint' | 'integer';
}

/** The first schema. Written once for every database; only the id types differ. */
export function initialMigration({ serial, serialPrimaryKey: serialPk, int64 }: IdColumnTypes) {
  const flag: Col = (c) => c.notNull().defaultTo(0);

  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', int64, (c) => c.primaryKey())
        .addColumn('login', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('phone', 'text', (c) => c.notNull())
        .addColumn('whatsapp', 'text', (c) => c.notNull())
        .addColumn('website', 'text', (c) => c.notNull())
        .addColumn('profile_picture', 'text', (c) => c.notNull())
        .addColumn('disabled', 'integer', flag)
        .execute();

      await db.schema
        .createTable('listings')
        .addColumn('id', int64, (c) => c.primaryKey())
        .addColumn('owner_id', int64, (c) => c.notNull().references('users.id'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('price', 'text', (c) => c.notNull())
        .addColumn('images', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('location', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('listings_owner').on('listings').column('owner_id').execute();

      await db.schema
        .createTable('favourites')
        // A plain rowid on SQLite (no AUTOINCREMENT bookkeeping): a new row's id is still above every existing one.
        .addColumn('id', serial, (c) => c.primaryKey())
        .addColumn('user_id', int64, (c) => c.notNull().references('users.id').onDelete('cascade'))
        // Deleting a listing removes it from every favourite list (D5).
        .addColumn('listing_id', int64, (c) => c.notNull().references('listings.id').onDelete('cascade'))
        .addColumn('added_at', int64, (c) => c.notNull())
        .addUniqueConstraint('favourites_user_listing', ['user_id', 'listing_id'])
        .execute();
      await db.schema.createIndex('favourites_listing').on('favourites').column('listing_id').execute();

      // No foreign key to listings: conversations outlive a deleted listing.
      await db.schema
        .createTable('conversations')
        .addColumn('id', serial, serialPk)
        .addColumn('listing_id', int64, (c) => c.notNull())
        .addColumn('sender_id', int64, (c) => c.notNull().references('users.id'))
        .addColumn('recipient_id', int64, (c) => c.notNull().references('users.id'))
        .addColumn('sender_delete', 'integer', flag)
        .addColumn('recipient_delete', 'integer', flag)
        .addColumn('sender_review', 'integer', flag)
        .addColumn('recipient_review', 'integer', flag)
        .addColumn('invert_review', 'integer', flag)
        .addColumn('last_message_id', int64)
        .addColumn('created_at', int64, (c) => c.notNull())
        .addColumn('updated_at', int64, (c) => c.notNull())
        .execute();
      // At most one open conversation per caller, owner and listing, whatever the timing (D6).
      await db.schema
        .createIndex('conversations_open_unique')
        .on('conversations')
        .columns(['listing_id', 'sender_id', 'recipient_id'])
        .unique()
        .where(sql.ref('sender_delete'), '=', 0)
        .where(sql.ref('recipient_delete'), '=', 0)
        .execute();
      await db.schema.createIndex('conversations_recipient').on('conversations').column('recipient_id').execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', serial, serialPk)
        .addColumn('con_id', int64, (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('source_id', int64, (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('attachments', 'text')
        .addColumn('meta', 'text')
        .addColumn('is_read', 'integer', flag)
        .addColumn('temp_id', 'text')
        .addColumn('created_at', int64, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('messages_con').on('messages').columns(['con_id', 'id']).execute();
      // Counting a participant's unread messages reads only those rows, however long the conversation.
      await db.schema.createIndex('messages_unread').on('messages').columns(['con_id', 'source_id', 'is_read']).execute();
      // A client retry with the same temp_id finds the message stored the first time (D6).
      await db.schema
        .createIndex('messages_retry_unique')
        .on('messages')
        .columns(['con_id', 'source_id', 'temp_id'])
        .unique()
        .where(sql.ref('temp_id'), 'is not', null)
        .execute();
    },
  };
}
