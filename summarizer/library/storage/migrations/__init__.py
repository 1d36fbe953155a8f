"""The library's migrations, one module a migration, named by its version and what it adds
(``v01_initial`` ... ``v11_data_rooms``); each holds one function that changes the schema inside
the transaction ``schema.migrate`` opens. ``schema.MIGRATIONS`` lists them in order with the
names recorded in the ``migrations`` table; running, recording and the backup before are there."""
