// A ray tracer in the shape of Allen's "Accelerated Ray Tracing in One
// Weekend in CUDA": the world built on the device by one thread with new
// (spheres behind an abstract hitable with virtual hit(), kept in a list),
// a render kernel a pixel a thread calling through the vtable, the world
// freed on the device with delete. The host renders the same classes (they
// are __host__ __device__) and the two images must agree.
// expect exit: 0
// expect stdout: ^device heap: at least 2097152 bytes
// expect stdout: render: 48x24 pixels, 3 spheres, [0-9]+ hit, correct
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define checkCudaErrors(val) check_cuda((val), #val, __FILE__, __LINE__)
void check_cuda(cudaError_t result, char const* const func, const char* const file, int const line)
{
    if (result) {
        fprintf(stderr, "CUDA error = %d at %s:%d '%s'\n", static_cast<unsigned int>(result), file, line, func);
        cudaDeviceReset();
        exit(99);
    }
}

class vec3 {
public:
    __host__ __device__ vec3() {}
    __host__ __device__ vec3(float e0, float e1, float e2) { e[0] = e0; e[1] = e1; e[2] = e2; }
    __host__ __device__ inline float x() const { return e[0]; }
    __host__ __device__ inline float y() const { return e[1]; }
    __host__ __device__ inline float z() const { return e[2]; }
    __host__ __device__ inline float length() const { return sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]); }
    float e[3];
};
__host__ __device__ inline vec3 operator+(const vec3& a, const vec3& b) { return vec3(a.e[0] + b.e[0], a.e[1] + b.e[1], a.e[2] + b.e[2]); }
__host__ __device__ inline vec3 operator-(const vec3& a, const vec3& b) { return vec3(a.e[0] - b.e[0], a.e[1] - b.e[1], a.e[2] - b.e[2]); }
__host__ __device__ inline vec3 operator*(float t, const vec3& v) { return vec3(t * v.e[0], t * v.e[1], t * v.e[2]); }
__host__ __device__ inline vec3 operator/(const vec3& v, float t) { return vec3(v.e[0] / t, v.e[1] / t, v.e[2] / t); }
__host__ __device__ inline float dot(const vec3& a, const vec3& b) { return a.e[0] * b.e[0] + a.e[1] * b.e[1] + a.e[2] * b.e[2]; }
__host__ __device__ inline vec3 unit_vector(const vec3& v) { return v / v.length(); }

class ray {
public:
    __device__ __host__ ray(const vec3& a, const vec3& b) : A(a), B(b) {}
    __device__ __host__ vec3 point_at_parameter(float t) const { return A + t * B; }
    vec3 A, B;
};

struct hit_record {
    float t;
    vec3 p, normal;
};

class hitable {
public:
    __host__ __device__ virtual ~hitable() {}
    __host__ __device__ virtual bool hit(const ray& r, float t_min, float t_max, hit_record& rec) const = 0;
};

class sphere : public hitable {
public:
    __host__ __device__ sphere(vec3 cen, float r) : center(cen), radius(r) {}
    __host__ __device__ bool hit(const ray& r, float t_min, float t_max, hit_record& rec) const override
    {
        const vec3 oc = r.A - center;
        const float a = dot(r.B, r.B), b = dot(oc, r.B), c = dot(oc, oc) - radius * radius;
        const float discriminant = b * b - a * c;
        if (discriminant <= 0) return false;
        for (float temp : {(-b - sqrtf(discriminant)) / a, (-b + sqrtf(discriminant)) / a}) {
            if (temp < t_max && temp > t_min) {
                rec.t = temp;
                rec.p = r.point_at_parameter(temp);
                rec.normal = (rec.p - center) / radius;
                return true;
            }
        }
        return false;
    }
    vec3 center;
    float radius;
};

class hitable_list : public hitable {
public:
    __host__ __device__ hitable_list(hitable** l, int n) : list(l), list_size(n) {}
    __host__ __device__ bool hit(const ray& r, float t_min, float t_max, hit_record& rec) const override
    {
        hit_record temp_rec;
        bool hit_anything = false;
        float closest_so_far = t_max;
        for (int i = 0; i < list_size; i++)
            if (list[i]->hit(r, t_min, closest_so_far, temp_rec)) {
                hit_anything = true;
                closest_so_far = temp_rec.t;
                rec = temp_rec;
            }
        return hit_anything;
    }
    hitable** list;
    int list_size;
};

// The colour of a ray: the normal of what it hits, else the sky's gradient; hits counts hits.
__host__ __device__ vec3 color(const ray& r, const hitable* world, int* hits)
{
    hit_record rec;
    if (world->hit(r, 0.0f, FLT_MAX, rec)) {
        ++*hits;
        return 0.5f * vec3(rec.normal.x() + 1.0f, rec.normal.y() + 1.0f, rec.normal.z() + 1.0f);
    }
    const float t = 0.5f * (unit_vector(r.B).y() + 1.0f);
    return (1.0f - t) * vec3(1.0, 1.0, 1.0) + t * vec3(0.5, 0.7, 1.0);
}

__host__ __device__ ray camera_ray(int i, int j, int max_x, int max_y)
{
    const float u = float(i) / float(max_x), v = float(j) / float(max_y);
    const vec3 lower_left_corner(-2.0, -1.0, -1.0), horizontal(4.0, 0.0, 0.0), vertical(0.0, 2.0, 0.0), origin(0.0, 0.0, 0.0);
    return ray(origin, lower_left_corner + u * horizontal + v * vertical);
}

__host__ __device__ void make_world(hitable** d_list, hitable** d_world)
{
    d_list[0] = new sphere(vec3(0, 0, -1), 0.5);
    d_list[1] = new sphere(vec3(0, -100.5, -1), 100);
    d_list[2] = new sphere(vec3(1.1f, 0.2f, -1.5f), 0.4f);
    *d_world = new hitable_list(d_list, 3);
}

__global__ void create_world(hitable** d_list, hitable** d_world)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) make_world(d_list, d_world);
}

__global__ void render(vec3* fb, int max_x, int max_y, hitable** world, int* hits)
{
    const int i = threadIdx.x + blockIdx.x * blockDim.x, j = threadIdx.y + blockIdx.y * blockDim.y;
    if ((i >= max_x) || (j >= max_y)) return;
    int my_hits = 0;
    fb[j * max_x + i] = color(camera_ray(i, j, max_x, max_y), *world, &my_hits);
    if (my_hits) atomicAdd(hits, my_hits);
}

__global__ void free_world(hitable** d_list, hitable** d_world)
{
    for (int i = 0; i < 3; i++) delete d_list[i];
    delete *d_world;
}

int main()
{
    const int nx = 48, ny = 24, tx = 8, ty = 8;
    // The world's few objects need little of the heap kernels' new draws on: 2 MB, set before any kernel runs.
    checkCudaErrors(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{2} << 20));
    size_t heap_bytes = 0;
    checkCudaErrors(cudaDeviceGetLimit(&heap_bytes, cudaLimitMallocHeapSize));
    // The driver may round the size up (an H100's gives 4 MB for 2 MB).
    if (heap_bytes < size_t{2} << 20) {
        printf("device heap: %zu bytes, less than asked for\n", heap_bytes);
        return 1;
    }
    printf("device heap: at least %zu bytes\n", size_t{2} << 20);
    vec3* fb;
    checkCudaErrors(cudaMallocManaged((void**)&fb, nx * ny * sizeof(vec3)));
    hitable **d_list, **d_world;
    int* d_hits;
    checkCudaErrors(cudaMalloc((void**)&d_list, 3 * sizeof(hitable*)));
    checkCudaErrors(cudaMalloc((void**)&d_world, sizeof(hitable*)));
    checkCudaErrors(cudaMalloc((void**)&d_hits, sizeof(int)));
    checkCudaErrors(cudaMemset(d_hits, 0, sizeof(int)));
    create_world<<<1, 1>>>(d_list, d_world);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    dim3 blocks(nx / tx + 1, ny / ty + 1), threads(tx, ty);
    render<<<blocks, threads>>>(fb, nx, ny, d_world, d_hits);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    int hits = 0;
    checkCudaErrors(cudaMemcpy(&hits, d_hits, sizeof(int), cudaMemcpyDeviceToHost));

    hitable* h_list[3];
    hitable* h_world;
    make_world(h_list, &h_world);
    int host_hits = 0, wrong = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const vec3 c = color(camera_ray(i, j, nx, ny), h_world, &host_hits);
            const vec3 d = fb[j * nx + i];
            wrong += std::fabs(c.x() - d.x()) > 1e-4f || std::fabs(c.y() - d.y()) > 1e-4f || std::fabs(c.z() - d.z()) > 1e-4f;
        }
    printf("render: %dx%d pixels, 3 spheres, %d hit, %s\n", nx, ny, hits, wrong || hits != host_hits ? "WRONG" : "correct");
    for (hitable* h : h_list) delete h;
    delete h_world;
    free_world<<<1, 1>>>(d_list, d_world);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaFree(d_list));
    checkCudaErrors(cudaFree(d_world));
    checkCudaErrors(cudaFree(d_hits));
    checkCudaErrors(cudaFree(fb));
    return wrong || hits != host_hits ? 1 : 0;
}
