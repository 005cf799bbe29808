package main

// server is the MCP registry's server.json (schema 2025-12-11): the
// fields this server uses, in the order written.
type server struct {
	Schema      string          `json:"$schema"`
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Version     string          `json:"version"`
	Packages    []serverPackage `json:"packages"`
}

type serverPackage struct {
	RegistryType     string            `json:"registryType"`
	Identifier       string            `json:"identifier"`
	Version          string            `json:"version"`
	Transport        map[string]string `json:"transport"`
	PackageArguments []serverArgument  `json:"packageArguments"`
}

type serverArgument struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsRequired  bool   `json:"isRequired"`
	Format      string `json:"format"`
	ValueHint   string `json:"valueHint"`
}

// serverJSON describes the npm package of version to the registry: a
// client runs it with npx and passes the database path as --db.
func serverJSON(version string) server {
	return server{
		Schema: serverSchema, Name: registryName, Title: title, Description: description, Version: version,
		Packages: []serverPackage{{
			RegistryType: "npm", Identifier: name, Version: version,
			Transport: map[string]string{"type": "stdio"},
			PackageArguments: []serverArgument{{
				Type: "named", Name: "--db", IsRequired: true, Format: "filepath", ValueHint: "database_path",
				Description: "The SQLite file the agent works in and remembers in (created with its folders on first start)",
			}},
		}},
	}
}
