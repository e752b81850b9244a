// Package api serves the Cloud Bigtable gRPC API (google.bigtable.v2.Bigtable,
// google.bigtable.admin.v2.BigtableTableAdmin and the parts of
// BigtableInstanceAdmin a single local instance needs) and Tabula's own admin
// extension on a tablet host. It is the only package that imports the
// Bigtable protos; it converts them to the engine's types, and every error it
// returns passes through one function, toStatus, that maps the engine's error
// classes to gRPC codes (DESIGN §2).
package api
