"""Adding many files at once (a folder, a .zip, a data room): finding them, the batch kept in the
library so it survives a restart, and running it with one progress over the whole set."""
