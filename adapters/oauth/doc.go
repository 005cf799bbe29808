// Package oauth verifies OAuth 2.1 access tokens (JWTs) from one
// authorization server, as the MCP authorization spec asks of a resource
// server: the signature against the issuer's published keys (JWKS, found
// through its RFC 8414 or OpenID Connect metadata and cached, refetched at
// a bounded rate when a token names a key it does not know), the issuer,
// the audience (RFC 8707: the token must be meant for this server), and
// the validity window with a bounded clock skew. The scopes become a
// [domain.Grant]. JOSE parsing and signature checks are go-jose's; this
// package writes no cryptography.
package oauth
