// Package schema reads the user's schema (ports.SchemaReader: tables,
// views, columns, stored statements, the server's own objects hidden) and
// writes views with their descriptions (ports.ViewWriter).
package schema
