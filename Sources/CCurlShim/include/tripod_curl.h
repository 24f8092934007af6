// Typed wrappers for libcurl's variadic calls (curl_easy_setopt, curl_easy_getinfo,
// curl_multi_setopt), which do not import into Swift. Each passes its one argument through.
#ifndef TRIPOD_CURL_H
#define TRIPOD_CURL_H
#include <curl/curl.h>

/// The write callback's type: CURLOPT_WRITEFUNCTION.
typedef size_t (*tripod_curl_write_function)(char *data, size_t size, size_t count, void *context);

CURLcode tripod_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode tripod_curl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode tripod_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode tripod_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode tripod_curl_easy_setopt_write_function(CURL *handle, tripod_curl_write_function function);
CURLcode tripod_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLMcode tripod_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

#endif
