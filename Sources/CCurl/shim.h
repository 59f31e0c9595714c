#ifndef STENO_CCURL_SHIM_H
#define STENO_CCURL_SHIM_H
#include <curl/curl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: typed shims. */
static inline CURLcode steno_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode steno_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode steno_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode steno_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode steno_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode steno_curl_easy_setopt_write_callback(CURL *handle, CURLoption option,
        size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode steno_curl_easy_setopt_xferinfo_callback(CURL *handle,
        int (*callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline CURLcode steno_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode steno_curl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode steno_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode steno_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

/* CURLOPT_OPENSOCKETFUNCTION: lets the caller see the address curl is about to connect to (after
   name resolution, for every connection, redirects included) and refuse it. */
typedef curl_socket_t (*steno_curl_opensocket_callback)(void *, curlsocktype, struct curl_sockaddr *);
static inline CURLcode steno_curl_easy_setopt_opensocket_callback(CURL *handle, steno_curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
/* The address's bytes in network order into `out` (16 bytes of room): 4 for IPv4, 16 for IPv6,
   0 for any other family. */
static inline int steno_curl_sockaddr_bytes(const struct curl_sockaddr *address, unsigned char *out) {
    if (address->family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&address->addr;
        memcpy(out, &in->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&address->addr;
        memcpy(out, &in6->sin6_addr, 16);
        return 16;
    }
    return 0;
}
/* What curl's own opensocket does: a socket for the address it was given. */
static inline curl_socket_t steno_curl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}

#endif
